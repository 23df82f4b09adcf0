// Package kubetest is the module's one fixture set: the Kubernetes
// objects schedkit's plugins read, an in-memory informer cache to list
// them from, and a framework handle that records what a plugin asks of
// kube-scheduler — for the tests of podjob, podtask, heldpods, the three
// plugins and the integration suite, the way schedkittest serves the
// root module.
//
// Objects are plain values with every field a plugin reads set the way
// the API server would set it (UIDs, a Job's controller reference with
// its UID, a node's capacity equal to its allocatable, a Ready
// condition); options change one thing each:
//
//	n := kubetest.Node("n1", 4, 2)                                   // 4 map, 2 reduce slots
//	j := kubetest.Job("batch", "etl", kubetest.Now, podjob.AnnotationRelativeDeadline, "600s")
//	p := kubetest.Pod("batch", "etl-0", kubetest.Now, kubetest.Of(j), kubetest.Slot)
//	r := kubetest.Pod("batch", "etl-r", kubetest.Now, kubetest.Of(j), kubetest.Reduce, kubetest.Slot)
//	done := kubetest.Pod("batch", "etl-1", kubetest.Now, kubetest.Of(j), kubetest.Succeeded("n1", start, 20*time.Second))
//
//	c := kubetest.NewCache()
//	c.Add(t, n, j, p, r, done)
//	lis := c.Listers() // what a plugin lists
//
// Pods name DefaultScheduler unless given Scheduler; Handle's
// ProfileName is DefaultScheduler unless set, so a plugin made on a
// Handle acts on the default pods.
package kubetest
