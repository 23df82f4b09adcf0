package sim

// A job's live tasks (materialised, not yet succeeded) are kept by index
// in the job in pages of livePage pointers, allocated when a task of the
// page is first materialised and dropped when its last live task
// succeeds. Tasks of a phase are materialised roughly in index order, so
// a job of 175,000 tasks holds a few pages at a time; a lookup is two
// slice indexings (a map cost a hash per lookup, insert and delete), and
// the live tasks come out in index order without sorting.
const livePage = 512

// liveAt returns the live task at index x of the job, or nil.
func (j *Job) liveAt(x int32) *Task {
	p := int(x) / livePage
	if p >= len(j.pages) || j.pages[p] == nil {
		return nil
	}
	return j.pages[p][int(x)%livePage]
}

// setLive makes t the live task at index x (none was).
func (j *Job) setLive(x int32, t *Task) {
	if j.pages == nil {
		n := (j.nTasks + livePage - 1) / livePage
		j.pages = make([][]*Task, n)
		j.pageLive = make([]int32, n)
	}
	p := int(x) / livePage
	if j.pages[p] == nil {
		j.pages[p] = j.s.newPage(min(livePage, j.nTasks-p*livePage))
	}
	j.pages[p][int(x)%livePage] = t
	j.pageLive[p]++
}

// dropLive removes the live task at index x.
func (j *Job) dropLive(x int32) {
	p := int(x) / livePage
	j.pages[p][int(x)%livePage] = nil
	if j.pageLive[p]--; j.pageLive[p] == 0 {
		j.s.freePage(j.pages[p])
		j.pages[p] = nil
	}
}

// newPage returns a cleared page for n pointers: its length is the
// smallest power of two ≥ n (at least minPage), so pages of every size
// are pooled by class and a day's thousands of small jobs allocate none
// once the pools are warm. Entries past n stay nil.
func (s *Sim) newPage(n int) []*Task {
	c := pageClass(n)
	if k := len(s.pages[c]); k > 0 {
		pg := s.pages[c][k-1]
		s.pages[c][k-1] = nil
		s.pages[c] = s.pages[c][:k-1]
		return pg
	}
	return make([]*Task, minPage<<c)
}

// freePage takes back an empty page (every entry nil).
func (s *Sim) freePage(pg []*Task) {
	c := pageClass(len(pg))
	s.pages[c] = append(s.pages[c], pg)
}

// minPage is the smallest page; pageClasses the number of page sizes,
// minPage·2^c for c < pageClasses, the last one livePage.
const (
	minPage     = 8
	pageClasses = 7
)

// The largest class is livePage.
const (
	_ = uint(livePage - minPage<<(pageClasses-1))
	_ = uint(minPage<<(pageClasses-1) - livePage)
)

// pageClass returns the class of a page for n ≤ livePage pointers.
func pageClass(n int) int {
	c := 0
	for minPage<<c < n {
		c++
	}
	return c
}

// sortedLive returns the live tasks of phase p (all phases if p < 0) in
// index order, in a buffer reused by the next call.
func (j *Job) sortedLive(p int) []*Task {
	buf := j.s.liveBuf[:0]
	lo, hi := 0, j.nTasks
	if p >= 0 {
		lo = j.phases[p].first
		hi = lo + j.phases[p].prog.Total
	}
	for pi := lo / livePage; pi < len(j.pages) && pi*livePage < hi; pi++ {
		pg := j.pages[pi]
		if pg == nil {
			continue
		}
		a, b := max(lo-pi*livePage, 0), min(hi-pi*livePage, len(pg))
		for _, t := range pg[a:b] {
			if t != nil {
				buf = append(buf, t)
			}
		}
	}
	j.s.liveBuf = buf
	return buf
}
