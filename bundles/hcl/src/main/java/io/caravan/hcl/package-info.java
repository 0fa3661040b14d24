/**
 * HCL2 native syntax: a lossless parser into immutable AST records with exact source ranges, and an evaluator
 * for expressions and templates. Entry point: {@link io.caravan.hcl.HclParser}.
 */
@Version("1.0.0")
package io.caravan.hcl;

import org.osgi.annotation.versioning.Version;
