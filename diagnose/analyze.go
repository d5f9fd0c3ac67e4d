package diagnose

// Analyze turns a Snapshot into a Report. It is pure: the same Snapshot always
// gives the same Report.
func Analyze(s *Snapshot) Report {
	r := Report{Target: TargetInfo{Kind: s.Target.Kind, Namespace: s.Target.Namespace, Name: s.Target.Name}}
	r.Verdict = Verdict{Stage: StageResolve, Code: CodeNotFound}
	return r
}
