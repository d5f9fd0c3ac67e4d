package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// expectation is deploy/sandbox/scenarios/<name>/expect.yaml: the target, the user who asks, and
// the verdict expected once the scenario's steps ran.
type expectation struct {
	Target struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"target"`
	User string `json:"user"`
	verdictExpectation
	// Or lists the other verdicts the scenario may end in, where the real Kueue races with
	// itself (each with why it may happen): the answer must match the verdict above or one of these.
	Or []verdictExpectation `json:"or,omitempty"`
}

// verdictExpectation is one verdict a scenario may end in and what the answer must say then.
type verdictExpectation struct {
	// Why says when the real stack ends in this verdict (set on the alternatives in Or).
	Why   string `json:"why,omitempty"`
	Stage string `json:"stage"`
	Code  string `json:"code"`
	Cause string `json:"cause"`
	// Remedies are remedy codes the answer must offer, where code and cause do not pin it down.
	Remedies []string `json:"remedies,omitempty"`
	// Mentions are words the answer must contain (headline, detail, remedies, findings): the
	// name of the object that blocks, the limit.
	Mentions []string `json:"mentions,omitempty"`
	// AdminMentions are words the answer must contain when read by who may read every object
	// (this runner, as admin; the recorded dump), not by the scenario's user: the names of
	// cluster-scoped objects (Nodes, Topologies, MultiKueueClusters) a plain user cannot read.
	AdminMentions []string `json:"adminMentions,omitempty"`
}

// verdicts returns the verdicts the scenario may end in, the main one first.
func (e expectation) verdicts() []verdictExpectation {
	return append([]verdictExpectation{e.verdictExpectation}, e.Or...)
}

// mismatch says how the answer r differs from v, or "" when it matches.
func (v verdictExpectation) mismatch(r cliReport) string {
	if r.Verdict.Stage != v.Stage || r.Verdict.Code != v.Code || r.Verdict.Cause != v.Cause {
		return fmt.Sprintf("verdict %s/%s/%s, expect.yaml says %s/%s/%s", r.Verdict.Stage, r.Verdict.Code, r.Verdict.Cause, v.Stage, v.Code, v.Cause)
	}
	for _, want := range v.Remedies {
		if !slices.ContainsFunc(r.Remedies, func(m cliRemedy) bool { return m.Code == want }) {
			return fmt.Sprintf("the answer lacks the remedy %s that expect.yaml names", want)
		}
	}
	for _, want := range append(slices.Clone(v.Mentions), v.AdminMentions...) {
		if !strings.Contains(r.text(), want) {
			return fmt.Sprintf("the answer does not say %q, as expect.yaml asks", want)
		}
	}
	return ""
}

func readExpectation(dir string) (expectation, error) {
	var e expectation
	b, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
	if err != nil {
		return e, err
	}
	if err := yaml.UnmarshalStrict(b, &e); err != nil {
		return e, fmt.Errorf("expect.yaml: %w", err)
	}
	return e, nil
}

// remedyStep applies what kueuebot tells the user to do: the runner diagnoses the scenario's
// target with the kueuebot CLI (reading the cluster as admin, as a platform engineer would),
// checks the verdict it starts from, takes the remedy with Code and runs its command with kubectl
// as whoever the remedy names (Who "you": the scenario's user with their own kubeconfig;
// "platform team": admin). The steps after it assert what Kueue does next; expect.yaml holds the
// verdict of the state that results.
type remedyStep struct {
	// Code of the remedy (Shrink, FixQueueName, UseOtherQueue, AddToleration, AskResume, Reactivate, ...).
	Code string `json:"code"`
	// Verdict is the code the diagnosis must give before the remedy (e.g. ExceedsMaxQuota).
	Verdict string `json:"verdict"`
	// Cause, if set, is the cause it must give.
	Cause string `json:"cause,omitempty"`
}

type cliReport struct {
	Verdict struct {
		Stage, Code, Cause, Headline, Detail string
	} `json:"verdict"`
	Remedies []cliRemedy `json:"remedies"`
	Findings []struct {
		Message string `json:"message"`
	} `json:"findings"`
}

// text is what the user reads of the answer: headline, detail, remedies and findings.
func (r cliReport) text() string {
	parts := []string{r.Verdict.Headline, r.Verdict.Detail}
	for _, m := range r.Remedies {
		parts = append(parts, m.Summary)
	}
	for _, f := range r.Findings {
		parts = append(parts, f.Message)
	}
	return strings.Join(parts, "\n")
}

type cliRemedy struct {
	Code    string `json:"code"`
	Summary string `json:"summary"`
	Who     string `json:"who"`
	Command string `json:"command"`
}

// diagnose runs `kueuebot diagnose` on the scenario's target with kubeconfig and returns its report.
func (sc *scenarioRun) diagnose(ctx context.Context, e expectation, kubeconfig string) (cliReport, string, error) {
	var r cliReport
	if sc.o.kueuebot == "" {
		return r, "", fmt.Errorf("no -kueuebot binary given")
	}
	kind := e.Target.Kind
	if kind == "" {
		kind = "Job"
	}
	cmd := exec.CommandContext(ctx, sc.o.kueuebot, "diagnose", kind+"/"+e.Target.Name, "-n", e.Target.Namespace,
		"--kubeconfig", kubeconfig, "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return r, "", fmt.Errorf("kueuebot diagnose: %w\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return r, "", fmt.Errorf("kueuebot diagnose: bad JSON: %w", err)
	}
	return r, stdout.String(), nil
}

func (sc *scenarioRun) runRemedy(ctx context.Context, rs remedyStep) error {
	e, err := readExpectation(sc.dir)
	if err != nil {
		return err
	}
	r, raw, err := sc.diagnose(ctx, e, filepath.Join(sc.o.state, "kubeconfig"))
	if err != nil {
		return err
	}
	if r.Verdict.Code != rs.Verdict || rs.Cause != "" && r.Verdict.Cause != rs.Cause {
		return fmt.Errorf("remedy %s: the diagnosis before it is %s/%s, want %s/%s:\n%s", rs.Code, r.Verdict.Code, r.Verdict.Cause, rs.Verdict, rs.Cause, raw)
	}
	var command, who string
	var codes []string
	for _, m := range r.Remedies {
		codes = append(codes, m.Code)
		if m.Code == rs.Code && command == "" {
			command, who = m.Command, m.Who
		}
	}
	if command == "" {
		return fmt.Errorf("remedy %s: the diagnosis offers no command for it (remedies: %s):\n%s", rs.Code, strings.Join(codes, ", "), raw)
	}
	// The command runs as exactly the identity the answer says acts, with that identity's RBAC:
	// a remedy that says "you" must work for the scenario's user.
	kubeconfig, as, err := sc.actor(who, e.User)
	if err != nil {
		return fmt.Errorf("remedy %s: %w", rs.Code, err)
	}
	if sc.o.kubectl == "" {
		return fmt.Errorf("remedy %s: no kubectl (build it with make sandbox-build, or pass -kubectl)", rs.Code)
	}
	// The command exactly as printed, through a shell (it carries shell quoting), with the
	// sandbox's kubectl first on PATH.
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PATH="+filepath.Dir(sc.o.kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	fmt.Printf("%-28s remedy %s as %s: %s\n%-28s   -> %s\n", sc.name, rs.Code, as, command, "", strings.TrimSpace(string(out)))
	if err != nil {
		return fmt.Errorf("remedy %s as %s: %s: %w\n%s", rs.Code, as, command, err, out)
	}
	return nil
}

// actor is the kubeconfig and name of whoever a remedy's Who names: "you" is the scenario's user,
// "platform team" is admin. Nothing else is accepted: a remedy must say who acts.
func (sc *scenarioRun) actor(who, user string) (kubeconfig, as string, err error) {
	switch who {
	case "you":
		if user == "" || user == "admin" {
			return "", "", fmt.Errorf("the remedy is for the user, and expect.yaml names no plain user (user: %q)", user)
		}
		return filepath.Join(sc.o.state, "kubeconfig-"+user), user, nil
	case "platform team":
		return filepath.Join(sc.o.state, "kubeconfig"), "admin", nil
	}
	return "", "", fmt.Errorf("the remedy names no one who acts (who: %q)", who)
}

// checkVerdict diagnoses the scenario's target live (as admin) once the dump is written and
// compares the verdict with expect.yaml, so that scenarios run with a Kueue configuration other
// than the one the sandbox ends with are diagnosed live too. Skipped without -kueuebot.
func (sc *scenarioRun) checkVerdict(ctx context.Context) error {
	if sc.o.kueuebot == "" {
		return nil
	}
	e, err := readExpectation(sc.dir)
	if err != nil {
		return err
	}
	r, raw, err := sc.diagnose(ctx, e, filepath.Join(sc.o.state, "kubeconfig"))
	if err != nil {
		return err
	}
	var why []string
	for i, v := range e.verdicts() {
		m := v.mismatch(r)
		if m == "" {
			if i > 0 {
				fmt.Printf("%-28s ended in the alternative verdict %s/%s (%s)\n", filepath.Base(sc.dir), v.Code, v.Cause, v.Why)
			}
			return nil
		}
		why = append(why, m)
	}
	return fmt.Errorf("live answer: %s:\n%s", strings.Join(why, "; or "), raw)
}
