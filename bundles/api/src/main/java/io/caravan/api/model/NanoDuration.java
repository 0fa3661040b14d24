package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import io.caravan.api.GoDuration;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;

/**
 * Marks a {@link Duration} written as Go's {@code time.Duration}: an integer number of nanoseconds. Input also
 * accepts a Go duration string ({@code "30s"}), which Nomad's API itself does not.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.ANNOTATION_TYPE})
@JacksonAnnotationsInside
@JsonSerialize(using = NanoDuration.Serializer.class)
@JsonDeserialize(using = NanoDuration.Deserializer.class)
public @interface NanoDuration {

    final class Serializer extends StdScalarSerializer<Duration> {
        private static final long serialVersionUID = 1L;

        public Serializer() {
            super(Duration.class);
        }

        @Override
        public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeNumber(value.toNanos());
        }
    }

    final class Deserializer extends StdScalarDeserializer<Duration> {
        private static final long serialVersionUID = 1L;

        public Deserializer() {
            super(Duration.class);
        }

        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonToken token = p.currentToken();
            if (token == JsonToken.VALUE_NUMBER_INT) {
                return Duration.ofNanos(p.getLongValue());
            }
            if (token == JsonToken.VALUE_NUMBER_FLOAT) {
                return Duration.ofNanos((long) p.getDoubleValue());
            }
            if (token == JsonToken.VALUE_STRING) {
                String text = p.getText().trim();
                try {
                    return text.matches("-?\\d+") ? Duration.ofNanos(Long.parseLong(text)) : GoDuration.parse(text);
                } catch (IllegalArgumentException e) {
                    return (Duration) ctxt.handleWeirdStringValue(Duration.class, text, e.getMessage());
                }
            }
            return (Duration) ctxt.handleUnexpectedToken(Duration.class, p);
        }
    }
}
