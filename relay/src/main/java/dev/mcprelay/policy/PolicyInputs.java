package dev.mcprelay.policy;

import java.util.ArrayDeque;
import java.util.Deque;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;

/**
 * What a policy expression reads, found once in its syntax tree when it is compiled: whether its outcome can differ
 * from one listed item to the next ({@link #perItem}: it reads {@code mcp.tool}, {@code mcp.prompt},
 * {@code mcp.resource} or {@code mcp.arguments}), and whether it needs the definition a server published for a tool
 * ({@link #annotations}), which a call does not carry.
 *
 * @param perItem whether it reads what names the item: decided once per list when not
 * @param annotations whether it reads {@code mcp.tool.annotations}
 * @param arguments whether it reads {@code mcp.arguments}
 * @param argumentShapes how it reads them
 */
record PolicyInputs(boolean perItem, boolean annotations, boolean arguments, ArgumentShapes argumentShapes) {

	/** What {@code ast} reads. */
	static PolicyInputs readBy(CelAbstractSyntaxTree ast) {
		boolean[] reads = new boolean[3];
		CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
			String path = pathOf(node.expr());
			if (path == null) {
				return;
			}
			if (path.startsWith("mcp.tool") || path.startsWith("mcp.prompt") || path.startsWith("mcp.resource")
					|| path.startsWith("mcp.arguments") || path.equals("mcp")) {
				reads[0] = true;
			}
			if (path.startsWith("mcp.tool.annotations") || path.equals("mcp.tool") || path.equals("mcp")) {
				reads[1] = true;
			}
			if (path.startsWith("mcp.arguments") || path.equals("mcp")) {
				reads[2] = true;
			}
		});
		return new PolicyInputs(reads[0], reads[1], reads[2], reads[2] ? ArgumentShapes.of(ast) : ArgumentShapes.NONE);
	}

	/**
	 * The dotted path of a chain of field selections on a variable ({@code mcp.tool.annotations}), or {@code null} for
	 * any other expression. A variable used whole ({@code mcp}) is its own path, and counts as reading everything under it.
	 */
	private static String pathOf(CelExpr expr) {
		Deque<String> fields = new ArrayDeque<>();
		CelExpr current = expr;
		while (current.getKind() == CelExpr.ExprKind.Kind.SELECT) {
			fields.push(current.select().field());
			current = current.select().operand();
		}
		if (current.getKind() != CelExpr.ExprKind.Kind.IDENT) {
			return null;
		}
		fields.push(current.ident().name());
		return String.join(".", fields);
	}

}
