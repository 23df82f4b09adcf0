package sim

import (
	"fmt"
	"time"
)

// wakePeriodic schedules the first tick and usage sample after a quiet
// spell (no active job): both run only while some job is active.
func (s *Sim) wakePeriodic() {
	if s.tk != nil && !s.tickOn {
		s.tickOn = true
		s.heap.push(s.now+int64(s.cfg.TickInterval), evTick, 0, 0)
	}
	if s.uw != nil && !s.usageOn {
		s.usageOn = true
		s.heap.push(s.now+int64(s.cfg.SampleInterval), evUsage, 0, 0)
	}
}

// tick calls the Ticker and applies its decisions (no default node).
func (s *Sim) tick() error {
	if s.nActive == 0 {
		s.tickOn = false
		return nil
	}
	s.heap.push(s.now+int64(s.cfg.TickInterval), evTick, 0, 0)
	s.stats.Ticks++
	t0 := s.tic()
	dst, err := s.tk.Tick(s.Now(), &s.cluster, s.dst[:0])
	s.toc(t0)
	s.stats.PolicyCalls++
	if err != nil {
		return fmt.Errorf("%w: %s: tick at %v: %w", ErrPolicy, s.policy.Name(), time.Duration(s.now), err)
	}
	s.applyAll(dst, nil)
	return nil
}

// usageSample delivers one round of node-agent measurements: for each
// live node in order, TaskSampled for every task running on it, then
// NodeSampled. Each amount is the true amount (see UsageWatcher) times
// max(0, 1 + σ·z), z standard normal, σ = Config.SampleNoise.
func (s *Sim) usageSample() {
	if s.nActive == 0 {
		s.usageOn = false
		return
	}
	s.heap.push(s.now+int64(s.cfg.SampleInterval), evUsage, 0, 0)
	s.stats.UsageSamples++
	t0 := time.Now()
	now := s.Now()
	for _, n := range s.live {
		tot := s.nodeBuf
		for _, k := range s.incompKinds {
			tot[k] = n.bg[k]
		}
		// Background load is compressed like everything else on a
		// contended kind.
		for _, k := range s.compKinds {
			tot[k] = n.bg[k] * (1 - n.rc[k])
		}
		for _, t := range n.running {
			a := t.run
			u := s.useBuf
			for k := range u {
				x := s.use(a, k)
				if !n.offloaded[k] {
					tot[k] += x
				}
				u[k] = s.noisy(x)
			}
			s.uw.TaskSampled(now, t, u)
			s.stats.TaskSamples++
		}
		for _, t := range n.guests {
			a, home := t.run, t.node
			for _, k := range s.offloadKinds {
				if home.offloaded[k] {
					tot[k] += s.use(a, k)
				}
			}
		}
		for k := range tot {
			tot[k] = s.noisy(tot[k])
		}
		s.uw.NodeSampled(now, n, tot)
	}
	s.usageTime += time.Since(t0)
}

// noisy applies the measurement noise to a true amount x.
func (s *Sim) noisy(x float64) float64 {
	if s.cfg.SampleNoise == 0 || x == 0 {
		return x
	}
	return x * max(0, 1+s.cfg.SampleNoise*s.noise.NormFloat64()) // as math.Max, inlined
}

// tic starts timing a policy call if it is one of the timed ones (one in
// Config.TimingSample): it returns the wall-clock start, or the zero
// Time for a call left untimed.
func (s *Sim) tic() time.Time {
	if s.cfg.TimingSample > 1 && s.decCalls%s.cfg.TimingSample != 0 {
		return time.Time{}
	}
	return time.Now()
}

// toc counts a policy call and, if tic timed it, its time.
func (s *Sim) toc(t0 time.Time) {
	if !t0.IsZero() {
		s.decTime += time.Since(t0)
		s.timedCalls++
	}
	s.decCalls++
}

// decisionTime is the policy calls' wall-clock time, scaled up from the
// timed calls to all of them when only one in Config.TimingSample was
// timed, plus the time of usage-sample deliveries (always timed).
func (s *Sim) decisionTime() time.Duration {
	d := s.decTime
	if s.timedCalls > 0 && s.timedCalls < s.decCalls {
		d = time.Duration(float64(d) * float64(s.decCalls) / float64(s.timedCalls))
	}
	return d + s.usageTime
}
