/**
 * The schedulers' implementation: {@link io.caravan.scheduler.internal.GenericScheduler} (service, batch) and
 * {@link io.caravan.scheduler.internal.SystemScheduler} (system, sysbatch) share the plan/refresh/retry loop and
 * the eval bookkeeping of {@link io.caravan.scheduler.internal.PlanningScheduler}; the pure reconcilers live in
 * {@code reconcile}, the placement pipeline in {@code placement}. Nothing here is exported.
 *
 * <p>Nomad behaviour not modelled yet: deployments, canaries and rolling-update limits ({@code max_parallel}:
 * destructive updates all happen in one plan); the {@code disconnect} block's {@code reconcile} choice (a
 * reconnected allocation always wins over its replacement, as {@code keep_original}) and
 * {@code stop_on_client_after}; preemption for service and batch jobs, and Nomad's closest-fit choice of what to
 * preempt (system jobs evict the lowest-priority, largest allocations first); device instance accounting, device
 * constraints and affinities; migrating ephemeral disk data (sticky disks do prefer the previous node); CSI
 * volumes; quotas.
 */
package io.caravan.scheduler.internal;
