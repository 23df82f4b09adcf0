package finegrained

// PlanCount returns the number of plans held (tests only).
func (pl *Plugin) PlanCount() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return len(pl.plans)
}
