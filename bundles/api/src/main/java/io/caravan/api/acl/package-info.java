/**
 * Nomad's ACL model as every bundle sees it: who is calling ({@link io.caravan.api.acl.Identity}), what they may do
 * ({@link io.caravan.api.acl.Acl}, compiled from policies by the acl bundle), what an endpoint requires
 * ({@link io.caravan.api.acl.AclRule}, declared once per endpoint), and the service that turns a secret into the
 * first two ({@link io.caravan.api.acl.AclResolver}).
 */
@Version("1.2.0")
package io.caravan.api.acl;

import org.osgi.annotation.versioning.Version;
