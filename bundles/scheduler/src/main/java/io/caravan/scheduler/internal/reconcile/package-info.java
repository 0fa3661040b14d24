/**
 * Pure reconcilers: desired state (the job) against existing allocations, giving placements, stops, in-place
 * updates and follow-up evaluations. No state store, no clock, no randomness except what the input carries.
 */
package io.caravan.scheduler.internal.reconcile;
