package heldpods

// WaitConditions waits until every condition write started so far has
// finished.
func (t *Tracker) WaitConditions() { t.conds.inflight.Wait() }
