// Package trace holds the estimate's trace-driven accuracy test
// (TestEstimateTrace): a seeded trace of jobs submitted to the real Kueue of
// the sandbox, every pending job's estimate recorded and compared with its
// real admission. It is a package of its own so that go test runs it beside
// the other end-to-end tests (test/e2e) rather than after them: it spends
// most of its four minutes waiting on Kueue, in namespaces and queues of its
// own. It skips unless KUEUEBOT_SANDBOX names the sandbox's state folder.
package trace
