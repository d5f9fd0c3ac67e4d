package i18n

import (
	"reflect"
	"testing"
	"time"
)

var _ = Register(
	Entry{ID: "i18n.test.pods", Args: []Kind{KindNum, KindObject},
		En: "{1|one:%[1]d pod|other:%[1]d pods} of %[2]s wait",
		Fr: "{1|one:%[1]d pod|other:%[1]d pods} de %[2]s attendent",
		Ja: "%[2]s の Pod %[1]d 個が待機しています",
		Zh: "%[2]s 的 %[1]d 个 Pod 正在等待"},
	Entry{ID: "i18n.test.nested", Args: []Kind{KindMsg, KindDur, KindList},
		En: "%[1]s for %[2]s: %[3]s",
		Fr: "%[1]s depuis %[2]s : %[3]s",
		Ja: "%[2]s前から%[1]s：%[3]s",
		Zh: "%[1]s，已 %[2]s：%[3]s"},
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Lang{
		"en": English, "en-US": English, "fr": French, "fr_FR.UTF-8": French, "FR-ca": French,
		"ja": Japanese, "ja-JP": Japanese, "ja_JP.eucJP": Japanese, "zh": Chinese, "zh-CN": Chinese,
		"zh-Hans": Chinese, "zh_TW.UTF-8": Chinese, "français": French, "日本語": Japanese, "中文": Chinese,
		"de_DE@euro": English, "C": English, "POSIX": English, "": English, "C.UTF-8": English,
	} {
		if got := ParseOr(in, English); got != want {
			t.Errorf("ParseOr(%q) = %s, want %s", in, got, want)
		}
	}
	if _, ok := Parse("de-DE"); ok {
		t.Error("Parse(de-DE) is ok")
	}
	var l Lang
	if err := l.UnmarshalText([]byte("ja-JP")); err != nil || l != Japanese {
		t.Errorf("UnmarshalText(ja-JP) = %s, %v", l, err)
	}
	if err := l.UnmarshalText([]byte("de")); err == nil {
		t.Error("UnmarshalText(de) did not fail")
	}
}

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want Lang
	}{
		{map[string]string{"LANG": "ja_JP.UTF-8"}, Japanese},
		{map[string]string{"LANG": "ja_JP.UTF-8", "LC_ALL": "fr_FR.UTF-8"}, French},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "C"}, English},
		{map[string]string{}, English},
	} {
		if got := fromEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("fromEnv(%v) = %s, want %s", c.env, got, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	job := Ref("job", "team-a", "sample-job")
	for _, c := range []struct {
		l    Lang
		n    int64
		want string
	}{
		{English, 1, "1 pod of job/sample-job wait"},
		{English, 0, "0 pods of job/sample-job wait"},
		{English, 1234, "1,234 pods of job/sample-job wait"},
		{French, 0, "0 pod de job/sample-job attendent"},
		{French, 1234, "1\u00a0234 pods de job/sample-job attendent"},
		{Japanese, 1, "job/sample-job の Pod 1 個が待機しています"},
		{Chinese, 3, "job/sample-job 的 3 个 Pod 正在等待"},
	} {
		got := Render(c.l, M("i18n.test.pods", Num(c.n), job))
		if got != c.want {
			t.Errorf("%s %d: got %q, want %q", c.l, c.n, got, c.want)
		}
	}
	m := M("i18n.test.nested", M("i18n.test.pods", Num(2), job), Dur(80*time.Minute), Or(Names("a", "b", "c")...))
	for l, want := range map[Lang]string{
		English:  "2 pods of job/sample-job wait for 1 h 20 min: a, b or c",
		French:   "2 pods de job/sample-job attendent depuis 1 h 20 min : a, b ou c",
		Japanese: "1時間20分前からjob/sample-job の Pod 2 個が待機しています：a、b、または c",
		Chinese:  "job/sample-job 的 2 个 Pod 正在等待，已 1 小时 20 分钟：a、b 或 c",
	} {
		if got := m.In(l); got != want {
			t.Errorf("%s: got %q, want %q", l, got, want)
		}
	}
	if got := m.Objects(); len(got) != 1 || got[0] != job {
		t.Errorf("Objects() = %v", got)
	}
	if got := Render(French, M("i18n.test.missing")); got != "!(i18n.test.missing)" {
		t.Errorf("missing ID renders %q", got)
	}
	if (Message{}).String() != "" {
		t.Error("zero Message renders text")
	}
}

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want [4]string
	}{
		{20 * time.Second, [4]string{"under a minute", "moins d’une minute", "1分未満", "不到 1 分钟"}},
		{12 * time.Minute, [4]string{"12 min", "12 min", "12分", "12 分钟"}},
		{2 * time.Hour, [4]string{"2 h", "2 h", "2時間", "2 小时"}},
		{80 * time.Minute, [4]string{"1 h 20 min", "1 h 20 min", "1時間20分", "1 小时 20 分钟"}},
		{51 * time.Hour, [4]string{"2 d 3 h", "2 j 3 h", "2日3時間", "2 天 3 小时"}},
	} {
		for _, l := range All() {
			if got := FormatDuration(l, Dur(c.d)); got != c.want[l] {
				t.Errorf("%s %v: got %q, want %q", l, c.d, got, c.want[l])
			}
		}
	}
	if got := FormatDurationRange(Japanese, Dur(20*time.Minute), Dur(45*time.Minute)); got != "20～45分" {
		t.Errorf("range: %q", got)
	}
}

func TestRegisterRejects(t *testing.T) {
	for name, e := range map[string]Entry{
		"duplicate":     {ID: "i18n.test.pods", En: "x"},
		"no other form": {ID: "i18n.test.bad1", Args: []Kind{KindNum}, En: "{1|one:pod}"},
		"no selector":   {ID: "i18n.test.bad2", Args: []Kind{KindNum}, En: "{1|pod|other:pods}"},
		"nested plural": {ID: "i18n.test.bad3", Args: []Kind{KindNum}, En: "{1|one:{1|other:x}|other:y}"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(e)
		}()
	}
}

func BenchmarkRender(b *testing.B) {
	m := M("i18n.test.nested", M("i18n.test.pods", Num(2), Ref("job", "ns", "x")), Dur(80*time.Minute), And(Names("a", "b")...))
	for _, l := range All() {
		b.Run(l.String(), func(b *testing.B) {
			for b.Loop() {
				_ = m.In(l)
			}
		})
	}
}

// TestE: E and Kinds build the Entry a catalog file would write out.
func TestE(t *testing.T) {
	got := E("i18n.test.e", Kinds(KindNum, KindObject), "en", "fr", "ja", "zh")
	want := Entry{ID: "i18n.test.e", Args: []Kind{KindNum, KindObject}, En: "en", Fr: "fr", Ja: "ja", Zh: "zh"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("E = %+v, want %+v", got, want)
	}
	if Kinds() != nil {
		t.Error("Kinds() is not nil")
	}
}
