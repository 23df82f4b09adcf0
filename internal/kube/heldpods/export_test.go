package heldpods

import "time"

// WaitConditions waits until every condition write asked for so far has
// finished: the queue empty and no write running, three times in a row.
func (t *Tracker) WaitConditions() {
	if t.conds.queue == nil {
		return
	}
	for calm := 0; calm < 3; {
		if t.conds.queue.Len() == 0 && t.conds.busy.Load() == 0 {
			calm++
		} else {
			calm = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}
