/**
 * The placement pipeline (STYLE §6): a seeded shuffle of candidate nodes, stateless {@link
 * io.caravan.scheduler.internal.placement.FeasibilityCheck}s with verdicts cached per computed node class, a
 * resource fit, abstaining {@link io.caravan.scheduler.internal.placement.NodeScorer}s averaged into one score,
 * a limit with Nomad's skip of poor nodes, and the best score wins. Every rejection is counted by reason.
 */
package io.caravan.scheduler.internal.placement;
