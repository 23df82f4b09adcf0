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
	//
	// slots held per workflow over time (paper 000 fig. 2)
	// metric   FIFO            EDF
	// 0.0s     1.89/1.84/0     0.96/1.91/0.95
	// 300.0s   6.95/1.87/1.93  6.97/3.15/1.01
	// 600.0s   1.64/5.67/2.87  3.2/4.65/2.81
	// 900.0s   0/1.55/0.94     0/1.55/0.94
	// 1200.0s  5.24/0.31/0.95  5.24/0.31/0.95
	// 1500.0s  0/1.86/0.92     0/1.86/0.92
	// 1800.0s  4.98/2.22/0.95  2.03/3.78/2.89
	// 2100.0s  5.39/3.47/2.82  7.61/1.96/1.9
	// 2400.0s  0.46/1.79/2.92  1.53/1.88/1.88
	// 2700.0s  7.54/1.87/1.91  7.7/1.86/1.91
	// 3000.0s  2.35/0/0.93     2.43/0/0.93
	// 3300.0s  5.88/0/0        2/3.46/0.96
	// 3600.0s  4.51/5.21/1.92  8.69/1.85/0.96
	// 3900.0s  0/2.29/1.25     0.12/2.3/1.26
	// 4200.0s  0/3.69/2.46     0/3.76/2.45
	// 4500.0s  0/0/0.95        0/0.01/0.95
	// 4800.0s  4.06/1.91/0     3.22/1.91/0.91
	// 5100.0s  1.16/1.77/1.87  2.08/1.77/0.96
	// 5400.0s  0/1.97/2.74     0/1.97/2.74
	// 5700.0s  9.22/0/0.97     6.74/1.87/1.94
	// 6000.0s  6.46/3.69/1.43  9.13/1.53/0.9
	// 6300.0s  5.27/0.07/0.88  5.34/0.51/0.43
	// 6600.0s  0/3.69/0.56     0/3.69/0.56
	// 6900.0s  0/1.86/1.88     0/1.86/1.88
	//   note: mean held over each 300.0s window from the row's time, per class: W4/W5/W6
}
