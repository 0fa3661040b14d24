/** The policy decoder (HCL and JSON sources, validation) and the compiled authorizer. Private to the bundle. */
package io.caravan.acl.internal;
