/**
 * Chrooted tasks for Nomad's exec-style drivers on Linux (exec, java): {@link io.caravan.driver.executor.chroot.ChrootHost}
 * probes the host, {@link io.caravan.driver.executor.chroot.CgroupV1} holds a task's limits and
 * {@link io.caravan.driver.executor.chroot.ChrootDriver} is everything such a driver does except turning its task
 * config into a command.
 */
@Version("1.0.0")
package io.caravan.driver.executor.chroot;

import org.osgi.annotation.versioning.Version;
