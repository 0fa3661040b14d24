/**
 * Task drivers: how a client starts, watches, stops and recovers tasks. A driver is a DS component providing
 * {@link io.caravan.plugin.api.driver.TaskDriver} with the property {@code caravan.driver.name} (Nomad's driver
 * name, e.g. {@code raw_exec}); its configuration is the factory PID {@code io.caravan.driver.<name>}.
 */
@Version("1.1.0")
package io.caravan.plugin.api.driver;

import org.osgi.annotation.versioning.Version;
