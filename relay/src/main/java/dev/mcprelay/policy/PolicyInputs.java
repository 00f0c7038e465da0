package dev.mcprelay.policy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;

/**
 * What a policy expression reads, found once in its syntax tree when it is compiled, exactly: each chain of field
 * selections on a variable is read as a whole ({@code mcp.prompt.name} reads the prompt's name, and nothing of the tool
 * or the arguments); only a variable used whole ({@code mcp}, {@code mcp.tool}) reads everything under it. What it
 * reads decides what a message costs: whether its verdict can differ from one listed item to the next
 * ({@link #perItem}), whether a request needs the tool or prompt the server published ({@link #tool},
 * {@link #annotations}, {@link #prompt}), and
 * whether its outcome can depend on a call's arguments ({@link #arguments}).
 *
 * @param tool whether it reads {@code mcp.tool} (its name or its annotations)
 * @param toolName whether it reads {@code mcp.tool.name}
 * @param prompt whether it reads {@code mcp.prompt}
 * @param annotations whether it reads {@code mcp.tool.annotations}, which a call does not carry
 * @param arguments whether it reads {@code mcp.arguments}
 * @param perItem whether it reads what names a listed item (the tool, prompt, resource or arguments): decided once per
 * list when not
 * @param argumentShapes how it reads the arguments
 */
record PolicyInputs(boolean tool, boolean toolName, boolean prompt, boolean annotations, boolean arguments,
		boolean perItem, ArgumentShapes argumentShapes) {

	/** What {@code ast} reads. */
	static PolicyInputs readBy(CelAbstractSyntaxTree ast) {
		Set<String> paths = new HashSet<>();
		CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
			if (!isOperandOfSelection(node)) {
				String path = pathOf(node.expr());
				if (path != null) {
					paths.add(path);
				}
			}
		});
		boolean tool = reads(paths, "mcp.tool");
		boolean prompt = reads(paths, "mcp.prompt");
		boolean arguments = reads(paths, "mcp.arguments");
		boolean perItem = tool || prompt || arguments || reads(paths, "mcp.resource");
		return new PolicyInputs(tool, reads(paths, "mcp.tool.name"), prompt, reads(paths, "mcp.tool.annotations"),
				arguments, perItem,
				arguments ? ArgumentShapes.of(ast) : ArgumentShapes.NONE);
	}

	/** Whether a path read is {@code field}, under it, or a variable or field it is under, used whole. */
	private static boolean reads(Set<String> paths, String field) {
		for (String path : paths) {
			if (path.equals(field) || path.startsWith(field + ".") || field.startsWith(path + ".")) {
				return true;
			}
		}
		return false;
	}

	/** Whether {@code node} is the operand of a field selection: part of a longer chain, read by the chain. */
	private static boolean isOperandOfSelection(CelNavigableExpr node) {
		Optional<CelNavigableExpr> parent = node.parent();
		return parent.isPresent() && parent.get().expr().getKind() == CelExpr.ExprKind.Kind.SELECT
				&& parent.get().expr().select().operand().id() == node.expr().id();
	}

	/**
	 * The dotted path of a chain of field selections on a variable ({@code mcp.tool.annotations}), or {@code null} for
	 * any other expression.
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
