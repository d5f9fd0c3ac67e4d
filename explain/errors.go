package explain

import (
	"errors"
	"strings"

	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
)

// userErr is an *Error from a catalog message: Message is its English,
// UserMessageIn renders it in the asker's language.
func userErr(id i18n.ID, args ...i18n.Arg) *Error {
	m := i18n.M(id, args...)
	return &Error{Message: m.String(), Msg: m}
}

// because sets the error's cause (for logs).
func (e *Error) because(cause error) *Error {
	e.Cause = cause
	return e
}

// errMsg is what err says to the user as a message: an *Error's Msg (its
// English Message, as it is, when it has none), a *fetch.ReadError's
// UserMsg, else the error's text.
func errMsg(err error) i18n.Message {
	var ue *Error
	if errors.As(err, &ue) {
		if !ue.Msg.IsZero() {
			return ue.Msg
		}
		return i18n.M("explain.text", i18n.Verbatim(ue.Message))
	}
	var re *fetch.ReadError
	if errors.As(err, &re) {
		return re.UserMsg()
	}
	return i18n.M("explain.text", i18n.Verbatim(userText(err)))
}

// inCluster names the cluster in a user error from it ("gpu-west: ...").
func inCluster(cluster string, ue *Error, failed []*look, cause error) *Error {
	inner := ue.Msg
	if inner.IsZero() {
		inner = i18n.M("explain.text", i18n.Verbatim(ue.Message))
	}
	if len(failed) == 0 {
		return userErr("explain.inCluster", i18n.Name(cluster), inner).because(cause)
	}
	return userErr("explain.inCluster.failed", i18n.Name(cluster), inner, failedList(failed)).because(cause)
}

// failureMsg is failure as a message.
func (l *look) failureMsg() i18n.Message {
	switch {
	case !l.mapped:
		return i18n.Message{}
	case l.timedOut:
		return i18n.M("explain.didNotAnswerWithin", i18n.Verbatim(l.c.timeout().String()))
	case l.err != nil && !errors.Is(l.err, errSeveralNamespaces):
		return errMsg(l.err)
	}
	return i18n.Message{}
}

// failedList says why each cluster failed, one sentence each ("In
// gpu-west: ... gpu-east did not answer: ..."); the sentence ends the
// failure's own text when it ends with a period.
func failedList(failed []*look) i18n.List {
	items := make([]i18n.Arg, 0, len(failed))
	for _, l := range failed {
		m := l.failureMsg()
		dot := ""
		if !strings.HasSuffix(m.String(), ".") {
			dot = ".dot"
		}
		var ue *Error
		if !l.timedOut && errors.As(l.err, &ue) {
			items = append(items, i18n.M(i18n.ID("explain.failed.in"+dot), i18n.Name(l.c.Name), m))
			continue
		}
		items = append(items, i18n.M(i18n.ID("explain.failed.noAnswer"+dot), i18n.Name(l.c.Name), m))
	}
	return i18n.List{Items: items, Sentences: true}
}

// namesList is names joined with commas.
func namesList(names []string) i18n.List { return i18n.Commas(i18n.Names(names...)...) }

func lookNames(looks []*look) i18n.List {
	names := make([]string, 0, len(looks))
	for _, l := range looks {
		names = append(names, l.c.Name)
	}
	return namesList(names)
}
