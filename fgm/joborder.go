package fgm

// The active jobs in compareJobs order, one ordered set per combination
// of integral kinds requested (Scheduler.needs): a job is in set m while
// one of its queue entries requests exactly the kinds m. A Schedule call
// on a server with closed kinds (closedKinds) walks the union of the
// sets whose kinds are all open, in order, by merging them: every job it
// visits has a task that can have a slot, and the jobs it leaves out
// would have been refused outright. Each set is a treap (a binary search
// tree balanced by priorities drawn from a counter), so a job whose
// state changed is moved in O(log n) rather than by a pass over the
// queue.

// tnode is a job's node in the set of its combination mask.
type tnode struct {
	j                   *jobEntry
	mask                int
	prio                uint64
	left, right, parent *tnode
}

// jobSet is a treap of jobs in compareJobs order.
type jobSet struct {
	root *tnode
	n    int
}

// treePrio returns the priority of the next node: splitmix64 of a
// counter, so runs are reproducible.
func (s *Scheduler) treePrio() uint64 {
	s.prioSeq += 0x9e3779b97f4a7c15
	z := s.prioSeq
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// insert adds x by compareJobs on the jobs' current states.
func (s *Scheduler) insert(t *jobSet, x *tnode) {
	x.left, x.right, x.parent = nil, nil, nil
	t.n++
	if t.root == nil {
		t.root = x
		return
	}
	p := t.root
	for {
		if s.compareJobs(x.j, p.j) < 0 {
			if p.left == nil {
				p.left = x
				break
			}
			p = p.left
		} else {
			if p.right == nil {
				p.right = x
				break
			}
			p = p.right
		}
	}
	x.parent = p
	for x.parent != nil && x.parent.prio < x.prio {
		t.rotateUp(x)
	}
}

// remove takes x out without comparing keys (they may be stale): it is
// rotated down to a leaf by priorities, then cut off.
func (t *jobSet) remove(x *tnode) {
	for x.left != nil || x.right != nil {
		c := x.left
		if c == nil || (x.right != nil && x.right.prio > c.prio) {
			c = x.right
		}
		t.rotateUp(c)
	}
	switch p := x.parent; {
	case p == nil:
		t.root = nil
	case p.left == x:
		p.left = nil
	default:
		p.right = nil
	}
	x.parent = nil
	t.n--
}

// rotateUp makes x its parent's parent, keeping the in-order sequence.
func (t *jobSet) rotateUp(x *tnode) {
	p := x.parent
	g := p.parent
	if p.left == x {
		p.left = x.right
		if x.right != nil {
			x.right.parent = p
		}
		x.right = p
	} else {
		p.right = x.left
		if x.left != nil {
			x.left.parent = p
		}
		x.left = p
	}
	p.parent = x
	x.parent = g
	switch {
	case g == nil:
		t.root = x
	case g.left == p:
		g.left = x
	default:
		g.right = x
	}
}

// first returns the least node, nil if empty.
func (t *jobSet) first() *tnode {
	x := t.root
	if x == nil {
		return nil
	}
	for x.left != nil {
		x = x.left
	}
	return x
}

// next returns the node after x in order, nil at the end.
func (x *tnode) next() *tnode {
	if x.right != nil {
		x = x.right
		for x.left != nil {
			x = x.left
		}
		return x
	}
	for x.parent != nil && x.parent.right == x {
		x = x.parent
	}
	return x.parent
}

// fixSets brings the sets up to date with the jobs whose state or queue
// changed since (setMoved): each is taken out of every set first (no
// comparisons: its key may have changed), then put back, by its current
// state, into the sets of the combinations its entries request.
func (s *Scheduler) fixSets() {
	if s.setsAll {
		// Every share changed (membership of the cluster): rebuild.
		s.setsAll = false
		for _, j := range s.jobs {
			if !j.setMoved {
				j.setMoved = true
				s.setMoved = append(s.setMoved, j)
			}
		}
	}
	if len(s.setMoved) == 0 {
		return
	}
	for _, j := range s.setMoved {
		for _, x := range j.nodes {
			s.sets[x.mask].remove(x)
		}
	}
	for _, j := range s.setMoved {
		j.setMoved = false
		buf := s.nodeBuf[:0]
		for m := range 1 << min(len(s.integral), maxNeedKinds) {
			if j.needs[m] == 0 || j.activePos < 0 {
				continue
			}
			var x *tnode
			for _, y := range j.nodes {
				if y.mask == m {
					x = y
				}
			}
			if x == nil {
				x = &tnode{j: j, mask: m, prio: s.treePrio()}
			}
			s.insert(&s.sets[m], x)
			buf = append(buf, x)
		}
		clear(j.nodes)
		j.nodes = append(j.nodes[:0], buf...)
		s.nodeBuf = buf
	}
	s.setMoved = s.setMoved[:0]
}

// setWalk merges, in compareJobs order, the sets of the combinations
// that request none of the closed kinds; a job in several appears once.
type setWalk struct {
	s   *Scheduler
	cur []*tnode
}

// start positions w at the least job of the open sets.
func (w *setWalk) start(s *Scheduler, closed int) {
	w.s = s
	w.cur = w.cur[:0]
	for m := range 1 << min(len(s.integral), maxNeedKinds) {
		if m&closed == 0 {
			if x := s.sets[m].first(); x != nil {
				w.cur = append(w.cur, x)
			}
		}
	}
}

// next returns the next job, nil at the end.
func (w *setWalk) next() *jobEntry {
	var best *jobEntry
	for _, x := range w.cur {
		if x != nil && (best == nil || w.s.compareJobs(x.j, best) < 0) {
			best = x.j
		}
	}
	if best == nil {
		return nil
	}
	for i, x := range w.cur {
		if x != nil && x.j == best {
			w.cur[i] = x.next()
		}
	}
	return best
}
