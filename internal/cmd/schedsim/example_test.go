package main

import "os"

// The simulator's tables for paper 000's heavy load, FIFO against EDF.
func Example() {
	run([]string{"-experiment", "paper000-heavy", "-policies", "fifo,edf", "-assumptions=false"}, os.Stdout, os.Stderr)
	// Output:
	// == paper000-heavy ==
	//
	// paper 000 heavy load (W4–W6), 5 workers
	// metric                     FIFO           EDF
	// jobs                       76             76
	// completed                  76             76
	// deadline success           0.842 (64/76)  0.934 (71/76)
	// not completed              0              0
	// response mean (completed)  145.9s         122.7s
	// response p50 (completed)   102.3s         80.5s
	// response p95 (completed)   328.7s         344.3s
	// wait mean (completed)      53.9s          20.2s
	// makespan                   6973.5s        6973.5s
	// Jain fairness (mean)       0.6948         0.7741
	// utilisation map-slot       0.5725         0.5725
	// utilisation reduce-slot    0.1683         0.1883
	// failed tasks               0              0
	// retried tasks              0              0
	// killed                     0              0
	// rejected                   0              0
	// failed jobs                0              0
	//
	// paper 000 heavy load (W4–W6), 5 workers — per class
	// metric                        FIFO           EDF
	// W4 deadline success           1.000 (14/14)  0.786 (11/14)
	// W4 response mean (completed)  254.7s         320.1s
	// W5 deadline success           0.846 (22/26)  0.962 (25/26)
	// W5 response mean (completed)  138.3s         112.1s
	// W6 deadline success           0.778 (28/36)  0.972 (35/36)
	// W6 response mean (completed)  109.1s         53.5s
}
