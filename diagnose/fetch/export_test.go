package fetch

// Test-only helpers of the store: production fills a Store from files
// (AddFiles, AddFS), from LISTs (ListInto) and from objects (AddObjects).

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kueuebot/kueuebot/diagnose"
)

// AddData loads one file's content as AddFiles does; name is used in errors.
func (s *Store) AddData(name string, data []byte) error {
	return s.addInputs([]input{{name: name, data: data}})
}

// fromFiles builds the Snapshot for t from objects saved with
// `kubectl get -o yaml` (or -o json). Each path is a file or a folder
// (searched recursively for *.yaml, *.yml and *.json, in sorted order);
// a file holds one object, several YAML documents, or a List.
//
// Objects are selected by the same rules as Fetch. Unknown kinds are
// ignored. Since files have no visibility API, Position and QueueAhead are
// derived from the pending Workloads in the files that belong to the same
// ClusterQueue, in Kueue's queue order. An unreadable file or malformed
// content is an error naming the file and document ("dump.yaml: document 3:
// ..."). To diagnose several targets, load a Store once instead.
func fromFiles(paths []string, t diagnose.Target, now time.Time) (*diagnose.Snapshot, error) {
	st := NewStore()
	if err := st.AddFiles(paths...); err != nil {
		return nil, err
	}
	return st.Snapshot(t, now)
}

// deleteObject removes an object (an informer's delete).
func (s *Store) deleteObject(obj runtime.Object) error {
	e, keep, err := entryFor(obj)
	if err != nil || !keep {
		return err
	}
	idx := s.lookup(e.gk)
	if idx == nil {
		return nil
	}
	if err := idx.Delete(e.obj); err != nil {
		return err
	}
	s.touch()
	return nil
}

// EventHandler returns an informer event handler that keeps the store in
// step with an informer of any kind the store keeps:
//
//	inf.AddEventHandler(st.EventHandler(func(err error) { log.Error(err) }))
//
// onError receives objects that could not be normalized (nil: ignored).
func (s *Store) EventHandler(onError func(error)) cache.ResourceEventHandler {
	report := func(err error) {
		if err != nil && onError != nil {
			onError(err)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { report(s.addAny(obj)) },
		UpdateFunc: func(_, obj any) { report(s.addAny(obj)) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if o, ok := obj.(runtime.Object); ok {
				report(s.deleteObject(o))
			}
		},
	}
}

func (s *Store) addAny(obj any) error {
	o, ok := obj.(runtime.Object)
	if !ok {
		return fmt.Errorf("not a Kubernetes object: %T", obj)
	}
	return s.AddObjects(o)
}
