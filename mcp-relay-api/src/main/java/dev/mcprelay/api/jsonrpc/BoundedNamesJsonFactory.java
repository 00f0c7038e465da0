package dev.mcprelay.api.jsonrpc;

import java.io.DataInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.core.JsonFactory;
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
 * A {@link JsonFactory} whose table of member names keeps only what a few small bodies name, however many names, and
 * however long, the bodies it reads hold.
 *
 * <p>Jackson's factory keeps one table of the member names it has read (its "root" symbol table): each parser gets a
 * child of it and, when it closes, the child's names replace the root's, up to 6,000 names of any length, for every
 * later parser to share. For a relay that reads what clients write, that is memory a client chooses: 900 unique names
 * of 50,000 characters, one request, stayed on the heap as 140 MB after the request was answered. Turning the table
 * off costs more than it saves (Jackson then reads UTF-8 through a {@code Reader}: a small {@code tools/call} allocates
 * 24% more, and a body's byte offsets are lost).
 *
 * <p>So a body of at most {@value #SHARED_INPUT} bytes (or characters) shares a root, the way Jackson does, and the
 * root is replaced by an empty one when it holds more than {@value #SHARED_NAMES} names: it keeps at most that many
 * names, each shorter than such a body, some 2 MB at the very most and a few KB in practice (a JSON-RPC message's
 * names). A larger body gets a root of its own, gone with its parser: its names live as long as its tree. Making a root
 * allocates some 8 KB, against a body larger than {@value #SHARED_INPUT} bytes. Names are never interned (the JVM's
 * string table would be one more place a client's names go).
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

	BoundedNamesJsonFactory(JsonFactoryBuilder builder) {
		super(builder.disable(JsonFactory.Feature.INTERN_FIELD_NAMES));
	}

	private BoundedNamesJsonFactory(BoundedNamesJsonFactory source, ObjectCodec codec) {
		super(source, codec);
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
		return new ByteSourceJsonBootstrapper(ctxt, data, offset, len).constructParser(_parserFeatures, _objectCodec,
				byteRoot(len), charRoot(len), _factoryFeatures);
	}

	@Override
	protected JsonParser _createParser(InputStream in, IOContext ctxt) throws IOException {
		return new ByteSourceJsonBootstrapper(ctxt, in).constructParser(_parserFeatures, _objectCodec,
				byteRoot(Long.MAX_VALUE), charRoot(Long.MAX_VALUE), _factoryFeatures);
	}

	@Override
	protected JsonParser _createParser(char[] data, int offset, int len, IOContext ctxt, boolean recyclable)
			throws IOException {
		return new ReaderBasedJsonParser(ctxt, _parserFeatures, null, _objectCodec, charRoot(len).makeChild(),
				data, offset, offset + len, recyclable);
	}

	@Override
	protected JsonParser _createParser(Reader reader, IOContext ctxt) throws IOException {
		return new ReaderBasedJsonParser(ctxt, _parserFeatures, reader, _objectCodec,
				charRoot(Long.MAX_VALUE).makeChild());
	}

	@Override
	protected JsonParser _createParser(DataInput input, IOContext ctxt) throws IOException {
		int firstByte = ByteSourceJsonBootstrapper.skipUTF8BOM(input);
		return new UTF8DataInputJsonParser(ctxt, _parserFeatures, input, _objectCodec,
				byteRoot(Long.MAX_VALUE).makeChild(_factoryFeatures), firstByte);
	}

	/** The root a parser of {@code length} bytes takes its table of names from. */
	private ByteQuadsCanonicalizer byteRoot(long length) {
		if (length > SHARED_INPUT) {
			return ByteQuadsCanonicalizer.createRoot();
		}
		ByteQuadsCanonicalizer root = sharedBytes.get();
		if (root.size() > SHARED_NAMES) {
			ByteQuadsCanonicalizer empty = ByteQuadsCanonicalizer.createRoot();
			return sharedBytes.compareAndSet(root, empty) ? empty : sharedBytes.get();
		}
		return root;
	}

	/** The root a parser of {@code length} characters (or bytes Jackson reads as UTF-16 or UTF-32) takes names from. */
	private CharsToNameCanonicalizer charRoot(long length) {
		if (length > SHARED_INPUT) {
			return CharsToNameCanonicalizer.createRoot(this);
		}
		CharsToNameCanonicalizer root = sharedChars.get();
		if (root.size() > SHARED_NAMES) {
			CharsToNameCanonicalizer empty = CharsToNameCanonicalizer.createRoot(this);
			return sharedChars.compareAndSet(root, empty) ? empty : sharedChars.get();
		}
		return root;
	}

}
