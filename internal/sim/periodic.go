package sim

import "time"

// wakePeriodic schedules the first tick and usage sample after a quiet
// spell (no active job): both run only while some job is active.
func (s *Sim) wakePeriodic() {
	if s.hk.tk != nil && !s.tickOn {
		s.tickOn = true
		s.eng.q.push(s.eng.now+int64(s.cfg.TickInterval), evTick, 0, 0)
	}
	if s.hk.uw != nil && !s.usageOn {
		s.usageOn = true
		s.eng.q.push(s.eng.now+int64(s.cfg.SampleInterval), evUsage, 0, 0)
	}
}

// tick calls the Ticker and applies its decisions (no default node).
func (s *Sim) tick() error {
	if s.b.nActive == 0 {
		s.tickOn = false
		return nil
	}
	s.eng.q.push(s.eng.now+int64(s.cfg.TickInterval), evTick, 0, 0)
	s.rec.stats.Ticks++
	t0 := s.rec.calls.tic()
	dst, err := s.hk.tk.Tick(s.eng.Now(), &s.cluster, s.dst[:0])
	s.rec.calls.toc(t0)
	s.rec.stats.PolicyCalls++
	if err != nil {
		return s.hk.errorf(err, "Tick")
	}
	s.applyAll(dst, nil)
	return nil
}

// usageSample delivers one round of node-agent measurements: for each
// live node in order, TaskSampled for every task running on it, then
// NodeSampled. Each amount is the true amount (see UsageWatcher) times
// max(0, 1 + σ·z), z standard normal, σ = Config.SampleNoise. The first
// error the policy returns ends the round, and the run.
func (s *Sim) usageSample() error {
	if s.b.nActive == 0 {
		s.usageOn = false
		return nil
	}
	s.eng.q.push(s.eng.now+int64(s.cfg.SampleInterval), evUsage, 0, 0)
	s.rec.stats.UsageSamples++
	t0 := time.Now()
	defer func() { s.rec.calls.usage += time.Since(t0) }()
	now := s.eng.Now()
	w := &s.w
	for _, n := range w.live {
		tot := s.nodeBuf
		for _, k := range w.kinds.incompKinds {
			tot[k] = n.bg[k]
		}
		// Background load is compressed like everything else on a
		// contended kind.
		for _, k := range w.kinds.compKinds {
			tot[k] = n.bg[k] * (1 - n.rc[k])
		}
		for _, t := range n.running {
			a := t.run
			u := s.useBuf
			for k := range u {
				x := w.use(a, k)
				if !n.offloaded[k] {
					tot[k] += x
				}
				u[k] = s.noisy(x)
			}
			if err := s.hk.taskSampled(now, t, u); err != nil {
				return err
			}
			s.rec.stats.TaskSamples++
		}
		for _, t := range n.guests {
			a, home := t.run, t.node
			for _, k := range w.kinds.offloadKinds {
				if home.offloaded[k] {
					tot[k] += w.use(a, k)
				}
			}
		}
		for k := range tot {
			tot[k] = s.noisy(tot[k])
		}
		if err := s.hk.nodeSampled(now, n, tot); err != nil {
			return err
		}
	}
	return nil
}

// noisy applies the measurement noise to a true amount x.
func (s *Sim) noisy(x float64) float64 {
	if s.cfg.SampleNoise == 0 || x == 0 {
		return x
	}
	return x * max(0, 1+s.cfg.SampleNoise*s.noise.NormFloat64()) // as math.Max, inlined
}
