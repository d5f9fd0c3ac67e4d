package main

import "time"

type scenarioOptions struct {
	state, dir, out, only string
	settle                time.Duration
}

func runScenarios(o scenarioOptions) error { return nil }
