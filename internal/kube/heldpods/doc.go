// Package heldpods is what schedkit's plugins keep of the pods they hold
// back (PreEnqueue) or refuse (PreFilter, Filter), for two host duties
// kube-scheduler leaves to a plugin:
//
//  1. Telling the user. kube-scheduler records no event, no condition
//     and no log line below verbosity 4 for a pod a PreEnqueue plugin
//     holds back, so a message naming a malformed annotation would never
//     reach anyone. Tracker.Hold records a Warning event on the pod
//     (reason EventReasonHeldBack, the plugin's message as its note),
//     logs it at the default verbosity, and sets the pod's condition
//     PodScheduled=False, reason ConditionReasonHeldBack, the message,
//     as kube-scheduler sets Unschedulable for a failed cycle (kubectl
//     get pod shows it; so do controllers that read the condition) —
//     once per pod and message. Release removes that condition when the
//     plugin lets the pod through, unless kube-scheduler or the binding
//     has replaced it since. The condition is written in the
//     background (PreEnqueue runs under the scheduling queue's lock) by a
//     few workers from a queue of pods, each pod once however often it
//     changes, each write applying the tracker's state when it runs,
//     with the pod's resourceVersion as a precondition; the workers stop
//     with the context New is given (the scheduler's). Twenty thousand
//     held pods are twenty thousand queue entries, not goroutines. It
//     needs patch on pods/status, which system:kube-scheduler grants. A
//     refusal in a scheduling cycle (PreFilter, Filter) is reported with
//     Tracker.Refuse: event and log line, no condition (kube-scheduler
//     sets its own).
//  2. Retrying as time passes. kube-scheduler retries an unschedulable
//     pod on a cluster event a plugin registered, or after its flush of
//     unschedulable pods (5 minutes). lss's and fgm's answers also
//     change with time alone (spare times shrink, predicted stages of
//     running pods end), so Tracker.Run re-activates the pods held with
//     retry every interval through the framework's own PodActivator
//     (the scheduling queue runs PreEnqueue again and, if it passes,
//     schedules the pod).
//
// It is also the home of what the plugins share on /metrics: the
// namespace (MetricsNamespace), schedkit_pods_held_back_total{plugin,
// reason} (HeldBack: every decision holding back or refusing a pod, by
// one of the Reason constants) and schedkit_held_pods{plugin} (Held: the
// pods a Tracker holds now), registered by RegisterMetrics.
//
// Usage, in a plugin's factory and extension points:
//
//	t := heldpods.New(ctx, Name, h)
//	go t.Run(ctx, interval)
//	...
//	st := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
//	t.Hold(ctx, pod, st.Message(), false) // PreEnqueue: reported, condition set; retried only on its events
//	t.Refuse(ctx, pod, st.Message())      // PreFilter: reported, kube-scheduler sets the condition
//	...
//	t.Release(pod.UID) // let through (PreEnqueue passes, Reserve): condition removed
package heldpods
