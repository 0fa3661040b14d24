/**
 * One shared timer thread for Caravan's short periodic and timer tasks, so that each bundle's heartbeats, samplers,
 * keyring passes and deadlines do not each keep a thread of their own: {@link io.caravan.api.timer.SharedTimer} is
 * the service, {@link io.caravan.api.timer.SharedTimers} its implementation (the agent registers one; tests make
 * their own).
 */
@Version("1.0.0")
package io.caravan.api.timer;

import org.osgi.annotation.versioning.Version;
