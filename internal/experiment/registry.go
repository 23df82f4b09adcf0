package experiment

// registry is every experiment schedsim knows, in -list order. Adding an
// experiment is one file defining an Experiment value and one line here.
var registry = []Experiment{
	paper000Light,
	paper000Heavy,
	fb2009,
	traceReplay,
	lssExp,
	accel,
	paper004Offline,
	paper004Online,
	paper004Cloud,
	paper004ContentionExp,
	paper003Exp1,
	paper003Exp2,
	fgmExp,
	fgmTraceExp,
	dbsExp,
}

// defaultSuite is what schedsim runs with no flags.
var defaultSuite = []string{
	paper000Light.Name,
	paper000Heavy.Name,
	fb2009.Name,
	lssExp.Name,
	accel.Name,
	paper004Offline.Name,
	paper004Online.Name,
	paper004Cloud.Name,
	paper003Exp1.Name,
	paper003Exp2.Name,
	fgmExp.Name,
	dbsExp.Name,
}
