/**
 * The schedulers' implementation: the generic (service, batch) and system (system, sysbatch) schedulers, the pure
 * reconcilers ({@code reconcile}) and the placement pipeline ({@code placement}). Nothing here is exported.
 */
package io.caravan.scheduler.internal;
