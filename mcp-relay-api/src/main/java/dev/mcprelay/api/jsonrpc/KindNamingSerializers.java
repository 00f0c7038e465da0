package dev.mcprelay.api.jsonrpc;

import java.io.IOException;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.ContextualSerializer;
import com.fasterxml.jackson.databind.ser.ResolvableSerializer;

/**
 * A value whose type names its kind in its JSON (Jackson's {@link JsonTypeInfo}, as MCP's content blocks do:
 * {@code "type": "text"}) is written with its kind wherever it sits. Jackson writes the kind only where the declared
 * type carries the annotation; where it is {@code Object} (a {@code List<Object>} or {@code Object} component of an
 * author's record, an {@code Object[]}, a {@code Map<String, Object>}, and every collection, whose element type erasure
 * loses) it left it out, which is no valid MCP and which the SDK's client refuses. Where the declared type carries it,
 * the kind is written once, as before.
 */
final class KindNamingSerializers {

	private KindNamingSerializers() {
	}

	/** The module to register on the mapper. */
	static SimpleModule module() {
		return new SimpleModule("kind-naming").setSerializerModifier(new BeanSerializerModifier() {

			@Override
			@SuppressWarnings("unchecked")
			public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription description,
					JsonSerializer<?> serializer) {
				return description.getClassAnnotations().has(JsonTypeInfo.class)
						? new KindNaming((JsonSerializer<Object>) serializer) : serializer;
			}

		});
	}

	/** Writes its value with the type id its class declares, unless the caller writes one already. */
	private static final class KindNaming extends JsonSerializer<Object>
			implements ContextualSerializer, ResolvableSerializer {

		private final JsonSerializer<Object> delegate;

		KindNaming(JsonSerializer<Object> delegate) {
			this.delegate = delegate;
		}

		@Override
		public void serialize(Object value, JsonGenerator generator, SerializerProvider provider) throws IOException {
			TypeSerializer kind = provider.findTypeSerializer(provider.constructType(value.getClass()));
			if (kind == null) {
				delegate.serialize(value, generator, provider);
			}
			else {
				delegate.serializeWithType(value, generator, provider, kind);
			}
		}

		@Override
		public void serializeWithType(Object value, JsonGenerator generator, SerializerProvider provider,
				TypeSerializer kind) throws IOException {
			delegate.serializeWithType(value, generator, provider, kind);
		}

		@Override
		@SuppressWarnings("unchecked")
		public JsonSerializer<?> createContextual(SerializerProvider provider, BeanProperty property)
				throws JsonMappingException {
			JsonSerializer<?> contextual = provider.handleSecondaryContextualization(delegate, property);
			return contextual == delegate ? this : new KindNaming((JsonSerializer<Object>) contextual);
		}

		@Override
		public void resolve(SerializerProvider provider) throws JsonMappingException {
			if (delegate instanceof ResolvableSerializer resolvable) {
				resolvable.resolve(provider);
			}
		}

		@Override
		public boolean isEmpty(SerializerProvider provider, Object value) {
			return delegate.isEmpty(provider, value);
		}

		@Override
		public Class<Object> handledType() {
			return delegate.handledType();
		}

	}

}
