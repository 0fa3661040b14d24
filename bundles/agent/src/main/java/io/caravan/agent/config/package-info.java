/**
 * Checking agent configuration files without an agent ({@code caravan config validate}).
 */
@Version("1.1.0")
package io.caravan.agent.config;

import org.osgi.annotation.versioning.Version;
