package main

// Digest schedules name IANA time zones (digests[].timeZone); the image
// has no zoneinfo files, so the binary carries the time zone database.
import _ "time/tzdata"
