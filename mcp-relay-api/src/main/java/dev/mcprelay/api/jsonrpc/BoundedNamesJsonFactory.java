package dev.mcprelay.api.jsonrpc;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.ByteSourceJsonBootstrapper;
import com.fasterxml.jackson.core.json.ReaderBasedJsonParser;
import com.fasterxml.jackson.core.json.UTF8DataInputJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import com.fasterxml.jackson.core.sym.CharsToNameCanonicalizer;

/**
 * A {@link JsonFactory} whose table of member names keeps only what a few small bodies name, and which reads a larger
 * body without any table of names at all, however many names, and however long, the bodies it reads hold.
 *
 * <p>Jackson's factory keeps one table of the member names it has read (its "root" symbol table): each parser gets a
 * child of it and, when it closes, the child's names replace the root's, up to 6,000 names of any length, for every
 * later parser to share. For a relay that reads what clients and upstreams write, that is memory they choose: 900
 * unique names of 50,000 characters, one request, stayed on the heap as 140 MB after the request was answered. And the
 * table is slow to grow by long names: Jackson's byte-reading table copies its whole area for each long name it adds,
 * so N long unique names in one body cost N&sup2; (900 names of 50,000 characters: 13 s on an event loop).
 *
 * <p>So a body of at most {@value #SHARED_INPUT} bytes (or characters) shares a root, the way Jackson does, and the
 * root is replaced by an empty one when it holds more than {@value #SHARED_NAMES} names: it keeps at most that many
 * names, each shorter than such a body, some 2 MB at the very most and a few KB in practice (a JSON-RPC message's
 * names). That keeps a small {@code tools/call} as cheap as Jackson makes it. A larger body, or one of unknown length
 * (a stream, a reader), is read with {@link JsonFactory.Feature#CANONICALIZE_FIELD_NAMES} off: each name is a new
 * {@code String} of its text, nothing is added to any table, nothing is kept, and the cost is linear in the body. Jackson
 * reads such a body through a {@code Reader} (its byte parser has no way without the table), so its parser reports
 * character offsets, not byte offsets ({@code dev.mcprelay.jsonrpc.BodyOffsets} turns them into byte offsets). Names are never interned (the JVM's string
 * table would be one more place a client's names go).
 */
final class BoundedNamesJsonFactory extends JsonFactory {

	private static final long serialVersionUID = 1L;

	/** The largest input whose parser shares the root: a typical request, notification or small answer. */
	static final int SHARED_INPUT = 4 * 1024;

	/** How many names the shared root may hold before it is replaced by an empty one. */
	static final int SHARED_NAMES = 256;

	private final transient AtomicReference<ByteQuadsCanonicalizer> sharedBytes =
			new AtomicReference<>(ByteQuadsCanonicalizer.createRoot());

	private final transient AtomicReference<CharsToNameCanonicalizer> sharedChars =
			new AtomicReference<>(CharsToNameCanonicalizer.createRoot(this));

	/**
	 * A root no large body's parser adds to: with the table off Jackson reads bytes through its {@code Reader}, and
	 * gives a {@code DataInput}'s parser a placeholder of it.
	 */
	private final transient ByteQuadsCanonicalizer unnamedBytes = ByteQuadsCanonicalizer.createRoot();

	/** The root of every large body's table: its children never add a name ({@link #unnamedRoot()}). */
	private final transient CharsToNameCanonicalizer unnamedChars;

	/** The factory features a large body is read with: these, without the table of names. */
	private final transient int unnamedFeatures;

	BoundedNamesJsonFactory(JsonFactoryBuilder builder) {
		super(builder.disable(JsonFactory.Feature.INTERN_FIELD_NAMES));
		this.unnamedFeatures = _factoryFeatures & ~JsonFactory.Feature.CANONICALIZE_FIELD_NAMES.getMask();
		this.unnamedChars = unnamedRoot();
	}

	private BoundedNamesJsonFactory(BoundedNamesJsonFactory source, ObjectCodec codec) {
		super(source, codec);
		this.unnamedFeatures = _factoryFeatures & ~JsonFactory.Feature.CANONICALIZE_FIELD_NAMES.getMask();
		this.unnamedChars = unnamedRoot();
	}

	/**
	 * A root whose children do not canonicalize (the feature is read from the root's factory): each name they read is
	 * a new {@code String}, never added to a table, so the root stays empty and may be shared by every large body.
	 */
	private CharsToNameCanonicalizer unnamedRoot() {
		JsonFactory withoutNames = new JsonFactoryBuilder().streamReadConstraints(streamReadConstraints())
			.disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
			.disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
			.build();
		return CharsToNameCanonicalizer.createRoot(withoutNames);
	}

	@Override
	public JsonFactory copy() {
		return new BoundedNamesJsonFactory(this, null);
	}

	@Override
	protected JsonParser _createParser(byte[] data, int offset, int len, IOContext ctxt) throws IOException {
		if (_inputDecorator != null) {
			return super._createParser(data, offset, len, ctxt);
		}
		if (len > SHARED_INPUT) {
			return unnamedParser(data, offset, len, ctxt);
		}
		return new ByteSourceJsonBootstrapper(ctxt, data, offset, len).constructParser(_parserFeatures, _objectCodec,
				sharedBytes(), charRoot(len), _factoryFeatures);
	}

	/**
	 * A parser of a large body that keeps no name: Jackson's reader of characters, whose names it makes one by one.
	 * UTF-8 (nearly every body) is decoded strictly, as Jackson's byte parser does (a malformed sequence is an error,
	 * never a replacement character), from after a byte-order mark. Jackson's own reader of a slice of an array reads
	 * past the slice (it takes its end for its length), so a body in another encoding is read from a copy of its own.
	 */
	private JsonParser unnamedParser(byte[] data, int offset, int len, IOContext ctxt) throws IOException {
		JsonEncoding encoding = new ByteSourceJsonBootstrapper(ctxt, data, offset, len).detectEncoding();
		if (encoding != JsonEncoding.UTF8) {
			byte[] text = offset == 0 ? data : Arrays.copyOfRange(data, offset, offset + len);
			return new ByteSourceJsonBootstrapper(ctxt, text, 0, len).constructParser(_parserFeatures, _objectCodec,
					unnamedBytes, unnamedChars, unnamedFeatures);
		}
		int bom = len >= 3 && data[offset] == ByteSourceJsonBootstrapper.UTF8_BOM_1
				&& data[offset + 1] == ByteSourceJsonBootstrapper.UTF8_BOM_2
				&& data[offset + 2] == ByteSourceJsonBootstrapper.UTF8_BOM_3 ? 3 : 0;
		Reader text = new InputStreamReader(new ByteArrayInputStream(data, offset + bom, len - bom),
				StandardCharsets.UTF_8.newDecoder()
					.onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT));
		return new ReaderBasedJsonParser(ctxt, _parserFeatures, text, _objectCodec, unnamedChars.makeChild());
	}

	@Override
	protected JsonParser _createParser(InputStream in, IOContext ctxt) throws IOException {
		return new ByteSourceJsonBootstrapper(ctxt, in).constructParser(_parserFeatures, _objectCodec,
				unnamedBytes, unnamedChars, unnamedFeatures);
	}

	@Override
	protected JsonParser _createParser(char[] data, int offset, int len, IOContext ctxt, boolean recyclable)
			throws IOException {
		return new ReaderBasedJsonParser(ctxt, _parserFeatures, null, _objectCodec, charRoot(len).makeChild(),
				data, offset, offset + len, recyclable);
	}

	@Override
	protected JsonParser _createParser(Reader reader, IOContext ctxt) throws IOException {
		return new ReaderBasedJsonParser(ctxt, _parserFeatures, reader, _objectCodec, unnamedChars.makeChild());
	}

	@Override
	protected JsonParser _createParser(DataInput input, IOContext ctxt) throws IOException {
		int firstByte = ByteSourceJsonBootstrapper.skipUTF8BOM(input);
		return new UTF8DataInputJsonParser(ctxt, _parserFeatures, input, _objectCodec,
				unnamedBytes.makeChildOrPlaceholder(unnamedFeatures), firstByte);
	}

	/** The root a small body's parser of bytes takes its table of names from. */
	private ByteQuadsCanonicalizer sharedBytes() {
		ByteQuadsCanonicalizer root = sharedBytes.get();
		if (root.size() > SHARED_NAMES) {
			ByteQuadsCanonicalizer empty = ByteQuadsCanonicalizer.createRoot();
			return sharedBytes.compareAndSet(root, empty) ? empty : sharedBytes.get();
		}
		return root;
	}

	/**
	 * The root a parser of {@code length} characters (or bytes Jackson reads as UTF-16 or UTF-32) takes names from: a
	 * large body's never adds one.
	 */
	private CharsToNameCanonicalizer charRoot(long length) {
		if (length > SHARED_INPUT) {
			return unnamedChars;
		}
		CharsToNameCanonicalizer root = sharedChars.get();
		if (root.size() > SHARED_NAMES) {
			CharsToNameCanonicalizer empty = CharsToNameCanonicalizer.createRoot(this);
			return sharedChars.compareAndSet(root, empty) ? empty : sharedChars.get();
		}
		return root;
	}

}
