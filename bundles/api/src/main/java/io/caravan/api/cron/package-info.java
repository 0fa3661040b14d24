/**
 * Cron expressions as Nomad's periodic jobs accept them (the syntax of hashicorp/cronexpr), and the next launch
 * time of one in a time zone. Shared by the server's periodic dispatcher and the CLI's {@code job status}.
 */
@Version("1.0.0")
package io.caravan.api.cron;

import org.osgi.annotation.versioning.Version;
