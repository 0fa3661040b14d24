/** The built-in feasibility checks, one class each, with Nomad's rejection reasons. */
package io.caravan.scheduler.internal.placement.check;
