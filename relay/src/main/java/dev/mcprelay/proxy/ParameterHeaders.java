package dev.mcprelay.proxy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.transport.WrittenHeaderBound;

/**
 * The {@code Mcp-Param-{Name}} request headers of MCP 2026-07-28 (SEP-2243, "Custom Headers from Tool Parameters"):
 * a tool marks an argument for mirroring with {@code "x-mcp-header": "Name"} in that property's schema inside its
 * {@code inputSchema}, reached from the root through {@code properties} keys only (a nested object's property too); a
 * client then sends the argument's value, read at that property path of {@code params.arguments}, in the header
 * {@code Mcp-Param-Name} (header names compare case-insensitively): a string as it is, an integer in decimal, a boolean
 * as {@code true} or {@code false}, any of them as {@code =?base64?<UTF-8 in Base64>?=} when it is not plain printable
 * ASCII; no header when the argument is absent or null. Which argument a header mirrors is therefore the tool's
 * declaration, not the header's name: {@code Mcp-Param-Region} may mirror {@code target.region}.
 *
 * <p>
 * Load balancers, gateways and WAFs behind the relay may route or police by these headers while the relay's
 * interceptors police by the body, as for {@code Mcp-Method} and {@code Mcp-Name} ({@link MirroredHeaders}). So a
 * header a tool declares must say what the argument says, on every line the client sends, or the request is refused
 * with the same {@code header_mismatch} (400, -32020): a value that differs (strings and booleans exactly, numbers
 * numerically, {@code 42.0} as {@code 42}, but only in plain decimal: {@code +42}, {@code 042}, {@code 4.2e1} and
 * {@code 0x2a} are no integer's decimal form, and something behind the relay may read them otherwise), a header for
 * an argument that is absent or null, a broken Base64 form, characters a header value may not hold, a name the tool
 * declares twice, any header of a tool that declares a name no header can carry. A header no declaration names is
 * none the relay recognizes: the specification has intermediaries
 * forward such a header untouched, and it mirrors nothing a server checks.
 *
 * <p>
 * When the relay forwards other arguments than the client sent (an interceptor changed them), the declared headers
 * are written from what is forwarded ({@link #mirror}): each one the tool declares, for an argument present and not
 * null, encoded as a client would; none for an argument that is absent.
 */
public final class ParameterHeaders {

	/** The lower-cased prefix of every parameter header. */
	static final String PREFIX = "mcp-param-";

	/** How the header of a declared argument is written upstream: {@code Mcp-Param-} and the declared name. */
	private static final String WRITTEN_PREFIX = "Mcp-Param-";

	private static final String BASE64_PREFIX = "=?base64?";

	private static final String BASE64_SUFFIX = "?=";

	/** How deep in nested {@code properties} declarations are looked for. */
	private static final int MAX_DEPTH = 32;

	/**
	 * The decimal form of a number in a header: an integer, optionally with a fraction ({@code 42.0}); no sign but
	 * {@code -}, no leading zero, no exponent.
	 */
	private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?");

	/**
	 * One argument a tool declares for mirroring: the header's name part as the tool wrote it, and the property path
	 * of the argument; {@code path} is {@code null} when the tool declares the name twice (case-insensitively), which
	 * the specification makes the tool invalid: any header of that name is refused.
	 */
	public record Mirrored(String name, List<String> path) {
	}

	private ParameterHeaders() {
	}

	/** Whether {@code name} is a parameter header ({@code Mcp-Param-*}, in any case). */
	public static boolean isParameterHeader(String name) {
		return name.regionMatches(true, 0, PREFIX, 0, PREFIX.length()) && name.length() > PREFIX.length();
	}

	/**
	 * Whether the client sent any parameter header, read from the request's own headers without copying their names
	 * (what every POST pays: nothing but the scan).
	 */
	public static boolean anyIn(io.netty.handler.codec.http.HttpHeaders headers) {
		Iterator<Map.Entry<CharSequence, CharSequence>> entries = headers.iteratorCharSequence();
		while (entries.hasNext()) {
			CharSequence name = entries.next().getKey();
			if (name.length() > PREFIX.length() && io.netty.util.AsciiString.regionMatches(name, true, 0, PREFIX, 0,
					PREFIX.length())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The arguments {@code tool} (an entry of a {@code tools/list} answer) declares for mirroring, by the lower-cased
	 * name part of their header; empty when it declares none. Only an RFC 9110 token (what a header name may be, as
	 * the SDKs require) is a name: a tool that declares anything else (a space, a line break, non-ASCII; what its
	 * server chose) is invalid, as the specification makes it, and each header it does declare validly is kept with
	 * no path, so that it is refused and never written (review 43h F-7); the names that are no token are dropped,
	 * since no header can carry them.
	 */
	public static Map<String, Mirrored> declaredBy(JsonNode tool) {
		Map<String, Mirrored> declared = new HashMap<>();
		if (collect(tool.path("inputSchema"), List.of(), declared, 0)) {
			declared.replaceAll((name, mirrored) -> new Mirrored(mirrored.name(), null));
		}
		return declared.isEmpty() ? Map.of() : Map.copyOf(declared);
	}

	/** Collects the declarations under {@code schema}; whether any of them is invalid (a name that is no token). */
	private static boolean collect(JsonNode schema, List<String> path, Map<String, Mirrored> declared, int depth) {
		JsonNode properties = schema.get("properties");
		if (depth > MAX_DEPTH || properties == null || !properties.isObject()) {
			return false;
		}
		boolean invalid = false;
		Iterator<Map.Entry<String, JsonNode>> fields = properties.fields();
		while (fields.hasNext()) {
			Map.Entry<String, JsonNode> property = fields.next();
			List<String> at = new ArrayList<>(path.size() + 1);
			at.addAll(path);
			at.add(property.getKey());
			JsonNode header = property.getValue().get("x-mcp-header");
			if (header != null && header.isTextual() && isToken(header.textValue())) {
				String name = header.textValue();
				declared.merge(name.toLowerCase(Locale.ROOT), new Mirrored(name, List.copyOf(at)),
						(first, second) -> new Mirrored(first.name(), null));
			}
			else if (header != null && header.isTextual()) {
				invalid = true;
			}
			invalid |= collect(property.getValue(), at, declared, depth + 1);
		}
		return invalid;
	}

	/** Whether {@code name} is an RFC 9110 token: one or more of the visible ASCII characters a header name may hold. */
	static boolean isToken(String name) {
		if (name.isEmpty()) {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
					|| "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Checks each parameter header {@code declared} names against the argument it mirrors in {@code arguments} (the
	 * call's {@code params.arguments}), on every line the client sent.
	 *
	 * @return the failure to answer with (400, -32020), or {@code null} when every declared header agrees
	 */
	public static RelayFailure mismatch(HttpHeaders headers, JsonNode arguments, Map<String, Mirrored> declared,
			String server) {
		if (declared.isEmpty()) {
			return null;
		}
		for (String name : headers.headerNames()) {
			if (!isParameterHeader(name)) {
				continue;
			}
			Mirrored mirrored = declared.get(name.substring(PREFIX.length()).toLowerCase(Locale.ROOT));
			if (mirrored == null) {
				continue;
			}
			JsonNode value = mirrored.path() == null ? null : valueAt(arguments, mirrored.path());
			for (String line : headers.getOrEmpty(name)) {
				if (!matches(line, value)) {
					return RelayFailures.headerMismatch(server, WRITTEN_PREFIX + mirrored.name(),
							mirrored.path() == null
								? "an argument (the tool declares headers invalidly: this one twice, or another that "
										+ "is no header name)"
									: "params.arguments." + String.join(".", mirrored.path()));
				}
			}
		}
		return null;
	}

	/** Whether one header line says {@code value} (absent or null: nothing may be said of it). */
	static boolean matches(String line, JsonNode value) {
		if (value == null || value.isNull() || !isFieldValue(line)) {
			return false;
		}
		String decoded = MirroredHeaders.decode(line);
		if (decoded == null) {
			return false;
		}
		if (value.isTextual()) {
			return decoded.equals(value.textValue());
		}
		if (value.isBoolean()) {
			return decoded.equals(value.booleanValue() ? "true" : "false");
		}
		if (value.isNumber()) {
			return DECIMAL.matcher(decoded).matches() && new BigDecimal(decoded).compareTo(value.decimalValue()) == 0;
		}
		return false;
	}

	/** Whether a header line holds only what a field value may: visible ASCII, space and tab (RFC 9110). */
	private static boolean isFieldValue(String line) {
		for (int i = 0; i < line.length(); i++) {
			char c = line.charAt(i);
			if ((c < 0x20 && c != '\t') || c >= 0x7f) {
				return false;
			}
		}
		return true;
	}

	/** The value at {@code path} of {@code arguments}, or {@code null} when there is none. */
	static JsonNode valueAt(JsonNode arguments, List<String> path) {
		JsonNode at = arguments;
		for (String key : path) {
			if (at == null || !at.isObject()) {
				return null;
			}
			at = at.get(key);
		}
		return at;
	}

	/**
	 * Writes the headers {@code declared} names on {@code wire} as {@code arguments} (those forwarded) say: every line
	 * of a declared header is replaced by the forwarded argument's value, encoded as a client would, or removed when
	 * that argument is absent, null or of no type a header carries; headers no declaration names stay as they are.
	 */
	public static void mirror(HttpHeaders wire, JsonNode arguments, Map<String, Mirrored> declared) {
		List<String> sent = new ArrayList<>();
		for (String name : wire.headerNames()) {
			if (isParameterHeader(name) && declared.containsKey(name.substring(PREFIX.length()).toLowerCase(Locale.ROOT))) {
				sent.add(name);
			}
		}
		sent.forEach(wire::remove);
		for (Mirrored mirrored : declared.values()) {
			String encoded = mirrored.path() == null ? null : encode(valueAt(arguments, mirrored.path()));
			if (encoded != null) {
				wire.set(WRITTEN_PREFIX + mirrored.name(), encoded);
			}
		}
	}

	/**
	 * Why the header of each argument {@code declared} names that {@link #mirror} would write from {@code arguments}
	 * cannot be written, as the failure to answer with (400, -32602, {@code header_unwritable}); {@code null} when
	 * every one can: a string that is no valid Unicode (a lone surrogate: its UTF-8 would be a replacement, and the
	 * header would disagree with the body), or a value longer than {@link WrittenHeaderBound#MAX_BYTES} bytes so
	 * written (the one bound of every header the relay writes: a server's header limit, Node's 16 KB for all of them,
	 * would drop the request, answered as unreachable). A value is measured before it is written ({@link #plainLength}:
	 * its encoding is never shorter), so that a short argument whose text is long (the number {@code 1e999999999}, a
	 * billion digits written out) costs nothing to refuse.
	 */
	public static RelayFailure unwritable(JsonNode arguments, Map<String, Mirrored> declared, String server) {
		for (Mirrored mirrored : declared.values()) {
			JsonNode value = mirrored.path() == null ? null : valueAt(arguments, mirrored.path());
			String why = null;
			if (value != null && value.isTextual() && !isUnicode(value.textValue())) {
				why = "the argument is no valid Unicode (an unpaired surrogate)";
			}
			else if (value != null && (plainLength(value) > WrittenHeaderBound.MAX_BYTES
					|| String.valueOf(encode(value)).length() > WrittenHeaderBound.MAX_BYTES)) {
				why = "it would be longer than the " + WrittenHeaderBound.MAX_BYTES
						+ " bytes the relay writes in a header";
			}
			if (why != null) {
				return RelayFailures.parameterHeaderUnwritable(server, WRITTEN_PREFIX + mirrored.name(),
						"params.arguments." + String.join(".", mirrored.path()), why);
			}
		}
		return null;
	}

	/** Whether {@code text} is valid Unicode: every surrogate paired. */
	private static boolean isUnicode(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * How many characters {@code value}'s text has before it is encoded (a string's, a boolean's, a number's plain
	 * decimal form: never in exponent notation, as a header carries it), computed without writing it: a number as
	 * short as {@code 1e999999999} is a billion digits written out. 0 for a value a header carries none of.
	 */
	static long plainLength(JsonNode value) {
		if (value == null) {
			return 0;
		}
		if (value.isTextual()) {
			return value.textValue().length();
		}
		if (value.isBoolean()) {
			return value.booleanValue() ? 4 : 5;
		}
		if (!value.isNumber()) {
			return 0;
		}
		BigDecimal number = value.decimalValue();
		long sign = number.signum() < 0 ? 1 : 0;
		long digits = number.precision();
		long scale = number.scale();
		if (scale <= 0) {
			return number.signum() == 0 ? 1 : sign + digits - scale;
		}
		return sign + (scale < digits ? digits + 1 : scale + 2);
	}

	/**
	 * {@code value} as a header carries it, or {@code null} when it carries none (absent, null, object, array) or
	 * when its text would be longer than {@link WrittenHeaderBound#MAX_BYTES} ({@link #unwritable} refuses such a call
	 * before anything is written: this only keeps its text from ever being built).
	 */
	static String encode(JsonNode value) {
		if (value == null || plainLength(value) > WrittenHeaderBound.MAX_BYTES) {
			return null;
		}
		String plain;
		if (value.isTextual()) {
			plain = value.textValue();
		}
		else if (value.isBoolean()) {
			plain = value.booleanValue() ? "true" : "false";
		}
		else if (value.isIntegralNumber()) {
			plain = value.bigIntegerValue().toString();
		}
		else if (value.isNumber()) {
			plain = value.decimalValue().toPlainString();
		}
		else {
			return null;
		}
		return isPlain(plain) ? plain
				: BASE64_PREFIX + Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8))
						+ BASE64_SUFFIX;
	}

	/**
	 * Whether {@code value} goes in a header as it is: printable ASCII, no space or tab at either end, and not in the
	 * sentinel form itself.
	 */
	private static boolean isPlain(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c >= 0x7f) {
				return false;
			}
		}
		return value.isEmpty() || (value.charAt(0) != ' ' && value.charAt(value.length() - 1) != ' '
				&& !(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX)));
	}

}
