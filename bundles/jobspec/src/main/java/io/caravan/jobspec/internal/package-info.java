/** The jobspec decoder: schema table, input variables, functions. Private to the bundle. */
package io.caravan.jobspec.internal;
