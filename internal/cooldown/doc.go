// Package cooldown is the rules of guard cooldown, on any store.Budgets:
//
//   - the budget steps (steps.go): check, decide on n actions at once,
//     record, reserve, finish and release a reservation, the healthy
//     streak, marks, and the pruning of old records, each over a
//     store.BudgetTx that only reads and writes a service's records, its
//     streak, the stamps and the event log, so that every backend gets the
//     same rules and the same events (as package circuit's steps do for
//     circuits); Rules runs them, one transaction each (actions.go), with
//     the fallback when the state is busy or does not parse (rules.go);
//   - which configured action a name means, when a periodic task is due,
//     which service names are refused (rules.go);
//   - what a shell command does to the budgets: which actions it takes, on
//     which services, and what in it guard cannot read (read.go, reading
//     the command with package shell), and the configured patterns a
//     command's normal form is matched against (match.go).
package cooldown
