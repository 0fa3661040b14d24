/** The built-in scorers, named as Nomad names them in {@code ScoreMetaData}. */
package io.caravan.scheduler.internal.placement.score;
