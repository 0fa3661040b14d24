/**
 * Lexer, parser and evaluator internals of the HCL bundle; not exported.
 */
package io.caravan.hcl.internal;
