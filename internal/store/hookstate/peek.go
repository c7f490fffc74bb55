package hookstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// PeekData returns key's circuit in data, a state document, without
// decoding the other keys; see Store.Peek.
func PeekData(data []byte, key string) (breaker.Circuit, error) {
	var raw []byte
	if src, _, _ := locate(data); src != nil {
		e, err := src.search(key)
		if err != nil {
			return breaker.Circuit{}, err
		}
		if e != nil {
			raw = e.raw
		}
	} else if r, ok := jsonx.Find(data, "hooks", key); ok && string(r) != "null" {
		raw = r
	} else if !ok && !json.Valid(data) {
		// Not found in a file that does not parse (torn, cut short): the
		// key may be past the break, a circuit open there. The update,
		// under the lock, moves the file aside and keeps what it can
		// (see Salvage) before it decides (faults #7).
		return breaker.Circuit{}, store.Corrupt(errors.New("the state file does not parse"))
	}
	if raw == nil {
		return breaker.Circuit{}, nil
	}
	h := &Hook{}
	if err := h.UnmarshalJSON(raw); err != nil {
		return breaker.Circuit{}, store.Corrupt(err)
	}
	if err := h.Check(); err != nil {
		return breaker.Circuit{}, err // the update sets it aside
	}
	return h.Circuit(), nil
}

// Validate checks that data is a hook state document guard can use: a JSON
// object whose hooks have known states and no negative counts.
func Validate(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		return err
	}
	for _, k := range d.Keys() {
		if _, err := d.Hook(k); err != nil {
			return err
		}
	}
	if aside := d.Aside(); len(aside) > 0 {
		return fmt.Errorf("hooks[%q]: %v", aside[0].Key, aside[0].Err)
	}
	return nil
}
