package cooldownstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"guard/internal/store"
)

// Validate checks that data is a cooldown document guard can use with
// actions: a JSON object whose services' action arrays hold records.
func Validate(data []byte, actions []store.Action) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return err
	}
	for _, name := range d.ServiceNames() {
		s := d.Services[name]
		if s == nil {
			return fmt.Errorf("services[%q] is null", name)
		}
		if s.ConsecutiveHealthy < 0 {
			return fmt.Errorf("services[%q].consecutive_healthy is negative", name)
		}
		for _, a := range actions {
			for _, field := range append([]string{a.Field}, aliases(a)...) {
				rs, err := s.records(field)
				if err != nil {
					return fmt.Errorf("services.%s.%v", name, err)
				}
				for i, r := range rs {
					if r.Unreadable() {
						return fmt.Errorf("services.%s.%s[%d] is not a record: %s", name, field, i, r.raw)
					}
				}
			}
		}
	}
	return nil
}
