/**
 * Build shim, not code: the shaded jctools inside ratis-thirdparty-misc marks this package {@code @Export}, and bnd
 * honours that annotation even for a private copy (it finds the package-info on the build path). This plain
 * package-info takes precedence, so the package stays private to io.caravan.consensus.
 */
package org.apache.ratis.thirdparty.io.netty.util.internal.shaded.org.jctools.util;
