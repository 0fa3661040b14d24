/**
 * Nomad's ACL policy language and the authorizer built from it.
 *
 * <pre>{@code
 * PolicyRules rules = AclPolicies.parse("namespace \"prod-*\" { policy = \"read\" }");   // HCL or JSON
 * Acl acl = AclPolicies.compile(List.of(rules, otherRules));                             // a token's policies
 * acl.allowNamespace("prod-web", Capability.READ_JOB);                                   // true
 * }</pre>
 *
 * Parsing is strict (an unknown block, attribute, policy or capability is a 400 naming it and its line:column);
 * the parsed form is an immutable record tree that can be stored and compiled later. Compiled ACLs are immutable and
 * their checks allocate nothing.
 */
@Version("1.1.0")
package io.caravan.acl;

import org.osgi.annotation.versioning.Version;
