package dev.mcprelay.policy;

import java.util.Map;
import java.util.Optional;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelOptionalLibrary;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;

/**
 * The one environment every policy expression is compiled, type-checked and run in (DESIGN section 12), the contract a
 * policy author writes against (docs/policies.md lists it):
 * <ul>
 * <li>{@code caller}: {@code kind} ({@code "api_key"}, {@code "jwt"}, {@code "anonymous"}), {@code id} (an API key's
 * client, a token's {@code client-claim}; {@code ""} when anonymous), {@code client} (the API key's client, else
 * {@code ""}), {@code scopes} (list of strings), {@code claims} (map; an API key's are {@code sub} and
 * {@code client_id});</li>
 * <li>{@code server}: {@code id} (the configured server the message goes to or comes from: for a virtual server, the
 * member) and {@code virtual} (the virtual server it came through, or {@code ""});</li>
 * <li>{@code mcp}: {@code method}, {@code direction} ({@code "client_to_server"}, or {@code "server_to_client"} for a
 * server's request: sampling, elicitation, roots), {@code tool} ({@code name}, {@code annotations}: the definition the
 * server published), {@code prompt.name}, {@code resource.uri}, and {@code arguments} (a call's arguments; unknown when
 * a listed item is decided);</li>
 * <li>{@code request}: {@code headers}, names in lower case, never those that can carry a credential
 * ({@link PolicyFacts#CREDENTIAL_HEADERS}).</li>
 * </ul>
 * Every field is always present: what a message does not name is {@code ""} or empty, so a rule about tools is simply
 * false for a prompt. A map key that is absent (a claim the token lacks, an annotation a tool does not declare) is an
 * error at run time, which denies: where one may be missing, write {@code has(caller.claims.groups) && ...} or use an
 * optional with a default, {@code mcp.tool.annotations.?readOnlyHint.orValue(false)} (CEL's optional values are on). The standard macros ({@code has},
 * {@code exists}, {@code all}, {@code map}, {@code filter}) and functions ({@code startsWith}, {@code matches}, ...) are
 * there; an expression's result must be a bool. Each expression has a second program that tracks unknowns, so that
 * {@code mcp.arguments} can be left unknown when an item is listed, and a list's items when a rule is decided once for
 * a whole list ({@link PolicyExpression}).
 */
public final class PolicyEnvironment {

	private static final MapType DYN_MAP = MapType.create(SimpleType.STRING, SimpleType.DYN);

	static final StructType TOOL = struct("mcp.relay.Tool", Map.of("name", SimpleType.STRING, "annotations", DYN_MAP));

	static final StructType PROMPT = struct("mcp.relay.Prompt", Map.of("name", SimpleType.STRING));

	static final StructType RESOURCE = struct("mcp.relay.Resource", Map.of("uri", SimpleType.STRING));

	static final StructType MCP = struct("mcp.relay.Message",
			Map.of("method", SimpleType.STRING, "direction", SimpleType.STRING, "tool", TOOL, "prompt", PROMPT,
					"resource", RESOURCE, "arguments", DYN_MAP));

	static final StructType CALLER = struct("mcp.relay.Caller",
			Map.of("kind", SimpleType.STRING, "id", SimpleType.STRING, "client", SimpleType.STRING, "scopes",
					ListType.create(SimpleType.STRING), "claims", DYN_MAP));

	static final StructType SERVER = struct("mcp.relay.Server",
			Map.of("id", SimpleType.STRING, "virtual", SimpleType.STRING));

	static final StructType REQUEST = struct("mcp.relay.Request",
			Map.of("headers", MapType.create(SimpleType.STRING, SimpleType.STRING)));

	private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
		.setTypeProvider(new Types())
		.setStandardMacros(CelStandardMacro.STANDARD_MACROS)
		.addLibraries(CelOptionalLibrary.INSTANCE)
		.addVar("caller", CALLER)
		.addVar("server", SERVER)
		.addVar("mcp", MCP)
		.addVar("request", REQUEST)
		.setResultType(SimpleType.BOOL)
		.build();

	/** Runs an expression on variables all known: a call, or an item whose rules read no arguments. */
	private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
		.addLibraries(CelOptionalLibrary.INSTANCE)
		.build();

	/**
	 * Runs an expression on variables some of which are unknown (a listed item's arguments; a list's items): tracking
	 * unknowns costs every selection, so it is kept for these.
	 */
	private static final CelRuntime PARTIAL_RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder()
		.setOptions(CelOptions.current().enableUnknownTracking(true).build())
		.addLibraries(CelOptionalLibrary.INSTANCE)
		.build();

	private PolicyEnvironment() {
	}

	/**
	 * {@code expression} compiled and type-checked.
	 * @throws CelValidationException with CEL's messages, each with its position, when it does not compile
	 */
	static PolicyExpression compile(String expression) throws CelValidationException {
		CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
		try {
			return new PolicyExpression(expression, RUNTIME.createProgram(ast), PARTIAL_RUNTIME.createProgram(ast),
					PolicyInputs.readBy(ast));
		}
		catch (CelEvaluationException ex) {
			throw new IllegalStateException("A checked expression has no program: " + expression, ex);
		}
	}

	private static StructType struct(String name, Map<String, CelType> fields) {
		return StructType.create(name, ImmutableSet.copyOf(fields.keySet()),
				field -> Optional.ofNullable(fields.get(field)));
	}

	/** The struct types above, for the type checker. */
	private static final class Types implements CelTypeProvider {

		private static final ImmutableList<CelType> ALL = ImmutableList.of(TOOL, PROMPT, RESOURCE, MCP, CALLER, SERVER,
				REQUEST);

		@Override
		public ImmutableCollection<CelType> types() {
			return ALL;
		}

		@Override
		public Optional<CelType> findType(String typeName) {
			return ALL.stream().filter(type -> type.name().equals(typeName)).findFirst();
		}

	}

}
