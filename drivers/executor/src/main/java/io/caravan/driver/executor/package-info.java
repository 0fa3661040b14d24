/**
 * Runs task processes for drivers that execute a command on the host (raw_exec, exec). A task runs under a tiny
 * {@code sh} wrapper in its own session, detached from the agent: its output goes straight to files and the wrapper
 * records the exit code in a file, so the task survives an agent restart and
 * {@link io.caravan.driver.executor.ProcessExecutor#recover} finds out how it ended.
 */
@Version("1.1.0")
package io.caravan.driver.executor;

import org.osgi.annotation.versioning.Version;
