/**
 * Scheduling as a library: {@link io.caravan.scheduler.Schedulers#create} gives the scheduler for an evaluation's
 * type; it reads a {@link io.caravan.scheduler.SchedulerState} snapshot and submits
 * {@link io.caravan.scheduler.Plan}s through a {@link io.caravan.scheduler.Planner}. The server owns the eval broker,
 * the workers and the plan applier; nothing here touches Raft, threads or the clock except through these types.
 */
@Version("1.3.0")
package io.caravan.scheduler;

import org.osgi.annotation.versioning.Version;
