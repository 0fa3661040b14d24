/**
 * Byte encodings Nomad's wire objects use that no library here provides: snappy blocks (dispatch payloads).
 */
@Version("1.0.0")
package io.caravan.api.codec;

import org.osgi.annotation.versioning.Version;
