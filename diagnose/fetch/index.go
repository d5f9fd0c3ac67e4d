package fetch

import (
	"sync"

	"k8s.io/client-go/tools/cache"
)

// kindStore holds the objects of one kind: a client-go cache.Indexer
// (items by "namespace/name", and the namespace and involved-object
// indexes) and, for kinds that have owners, an owner index of its own.
//
// client-go's index keeps a set per index value; for owners, where nearly
// every value (a job's UID) has one object, that set costs about 250 bytes
// per Workload, more than a tenth of a slimmed one. ownerIndex keeps the
// single object directly and a list only for the rare UID that owns more.
type kindStore struct {
	items  cache.Indexer
	owners *ownerIndex
	// mu orders writes, so that the owner index follows the items.
	mu sync.Mutex
}

func newKindStore(idx cache.Indexers, ownersOf func(obj any) []string) *kindStore {
	ks := &kindStore{items: cache.NewIndexer(cache.MetaNamespaceKeyFunc, idx)}
	if ownersOf != nil {
		ks.owners = &ownerIndex{of: ownersOf, one: map[string]any{}, many: map[string][]any{}}
	}
	return ks
}

// Update adds obj or replaces the object of the same key.
func (ks *kindStore) Update(obj any) error {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	old, had, _ := ks.items.GetByKey(key)
	if err := ks.items.Update(obj); err != nil {
		return err
	}
	if ks.owners != nil {
		if had {
			ks.owners.remove(old)
		}
		ks.owners.add(obj)
	}
	return nil
}

// Delete removes the object of obj's key.
func (ks *kindStore) Delete(obj any) error {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	old, had, _ := ks.items.GetByKey(key)
	if !had {
		return nil
	}
	if err := ks.items.Delete(old); err != nil {
		return err
	}
	if ks.owners != nil {
		ks.owners.remove(old)
	}
	return nil
}

// List returns every object.
func (ks *kindStore) List() []any { return ks.items.List() }

// ListKeys returns every object's key.
func (ks *kindStore) ListKeys() []string { return ks.items.ListKeys() }

// GetByKey returns the object of a "namespace/name" key.
func (ks *kindStore) GetByKey(key string) (any, bool, error) { return ks.items.GetByKey(key) }

// ByIndex returns the objects under one value of an index.
func (ks *kindStore) ByIndex(index, value string) ([]any, error) {
	if index == indexOwner && ks.owners != nil {
		return ks.owners.get(value), nil
	}
	return ks.items.ByIndex(index, value)
}

// ownerIndex maps an owner UID to the objects it owns.
type ownerIndex struct {
	of func(obj any) []string
	mu sync.RWMutex
	// one holds the UIDs that own one object, many those that own more.
	one  map[string]any
	many map[string][]any
}

func (o *ownerIndex) add(obj any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, uid := range o.of(obj) {
		if objs, ok := o.many[uid]; ok {
			o.many[uid] = append(objs, obj)
		} else if first, ok := o.one[uid]; ok {
			delete(o.one, uid)
			o.many[uid] = []any{first, obj}
		} else {
			o.one[uid] = obj
		}
	}
}

func (o *ownerIndex) remove(obj any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, uid := range o.of(obj) {
		if o.one[uid] == obj {
			delete(o.one, uid)
			continue
		}
		objs := o.many[uid]
		for i, x := range objs {
			if x == obj {
				objs = append(objs[:i:i], objs[i+1:]...)
				break
			}
		}
		switch len(objs) {
		case 0:
			delete(o.many, uid)
		case 1:
			delete(o.many, uid)
			o.one[uid] = objs[0]
		default:
			o.many[uid] = objs
		}
	}
}

func (o *ownerIndex) get(uid string) []any {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if obj, ok := o.one[uid]; ok {
		return []any{obj}
	}
	return append([]any(nil), o.many[uid]...)
}
