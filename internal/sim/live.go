package sim

// A job's live tasks (materialised, not yet succeeded) are kept by index
// in the job in pages of livePage pointers, allocated when a task of the
// page is first materialised and dropped when its last live task
// succeeds. Tasks of a phase are materialised roughly in index order, so
// a job of 175,000 tasks holds a few pages at a time; a lookup is two
// slice indexings (a map cost a hash per lookup, insert and delete), and
// the live tasks come out in index order without sorting.
const livePage = 512

// livePageRef is a job's page of live tasks (nil while none is live)
// with its count of live tasks beside it, in one cache line.
type livePageRef struct {
	tasks []*Task
	live  int32
}

// liveAt returns the live task at index x of the job, or nil.
func (j *Job) liveAt(x int32) *Task {
	p := int(x) / livePage
	if p >= len(j.pages) || j.pages[p].tasks == nil {
		return nil
	}
	return j.pages[p].tasks[int(x)%livePage]
}

// setLive makes t the live task at index x (none was).
func (j *Job) setLive(x int32, t *Task) {
	if j.pages == nil {
		j.pages = make([]livePageRef, (j.nTasks+livePage-1)/livePage)
	}
	pg := &j.pages[int(x)/livePage]
	if pg.tasks == nil {
		p := int(x) / livePage
		pg.tasks = j.b.newPage(min(livePage, j.nTasks-p*livePage))
	}
	pg.tasks[int(x)%livePage] = t
	pg.live++
}

// dropLive removes the live task at index x.
func (j *Job) dropLive(x int32) {
	pg := &j.pages[int(x)/livePage]
	pg.tasks[int(x)%livePage] = nil
	if pg.live--; pg.live == 0 {
		j.b.freePage(pg.tasks)
		pg.tasks = nil
	}
}

// newPage returns a cleared page for n pointers: its length is the
// smallest power of two ≥ n (at least minPage), so pages of every size
// are pooled by class and a day's thousands of small jobs allocate none
// once the pools are warm. Entries past n stay nil.
func (b *book) newPage(n int) []*Task {
	c := pageClass(n)
	if k := len(b.pages[c]); k > 0 {
		pg := b.pages[c][k-1]
		b.pages[c][k-1] = nil
		b.pages[c] = b.pages[c][:k-1]
		return pg
	}
	return make([]*Task, minPage<<c)
}

// freePage takes back an empty page (every entry nil).
func (b *book) freePage(pg []*Task) {
	c := pageClass(len(pg))
	b.pages[c] = append(b.pages[c], pg)
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
	buf := j.b.liveBuf[:0]
	lo, hi := 0, j.nTasks
	if p >= 0 {
		lo = j.phases[p].first
		hi = lo + j.phases[p].prog.Total
	}
	for pi := lo / livePage; pi < len(j.pages) && pi*livePage < hi; pi++ {
		pg := j.pages[pi].tasks
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
	j.b.liveBuf = buf
	return buf
}
