package dev.mcprelay.policy;

import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;

/**
 * How an expression reads a call's arguments, found once in its syntax tree, so that a listed item whose rules depend
 * on arguments can be decided exactly ({@link ArgumentCandidates}): the argument names it reads, the constants it
 * compares them with, and whether every read is of a form whose outcome those constants decide ({@link #exact}):
 * {@code mcp.arguments.x}, {@code mcp.arguments.?x.orValue(c)}, {@code mcp.arguments["x"]} and {@code has(...)} of
 * them, each compared with {@code ==} or {@code !=} to a constant, tested with {@code in} a list of constants, or used
 * as a bool. Any other read ({@code mcp.arguments} whole, a function of an argument such as {@code startsWith}, a
 * comparison with {@code <}) leaves the outcome undecided for some values no constant names.
 *
 * @param names the argument names read
 * @param constants every constant of the expression (what an argument may be compared with)
 * @param exact whether the argument values {@code constants} and a value equal to none of them decide every read
 */
record ArgumentShapes(Set<String> names, Set<Object> constants, boolean exact) {

	static final ArgumentShapes NONE = new ArgumentShapes(Set.of(), Set.of(), true);

	static ArgumentShapes of(CelAbstractSyntaxTree ast) {
		Set<String> names = new LinkedHashSet<>();
		Set<Object> constants = new LinkedHashSet<>();
		boolean[] exact = { true };
		CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
			CelExpr expr = node.expr();
			if (expr.getKind() == CelExpr.ExprKind.Kind.CONSTANT) {
				Object value = valueOf(expr.constant());
				if (value != null) {
					constants.add(value);
				}
				return;
			}
			if (!isArguments(expr)) {
				return;
			}
			// mcp.arguments itself: how its parent reads it decides
			Optional<CelNavigableExpr> parent = node.parent();
			String name = parent.map(ArgumentShapes::nameRead).orElse(null);
			if (name == null) {
				exact[0] = false;
				return;
			}
			names.add(name);
			if (!decidedByConstants(parent.get())) {
				exact[0] = false;
			}
		});
		return names.isEmpty() && exact[0] ? NONE : new ArgumentShapes(Set.copyOf(names), Set.copyOf(constants), exact[0]);
	}

	/** The argument {@code read} reads from {@code mcp.arguments}: {@code .x}, {@code .?x}, {@code ["x"]}, {@code [?"x"]}. */
	private static String nameRead(CelNavigableExpr read) {
		CelExpr expr = read.expr();
		if (expr.getKind() == CelExpr.ExprKind.Kind.SELECT) {
			return expr.select().field();
		}
		if (expr.getKind() == CelExpr.ExprKind.Kind.CALL && expr.call().args().size() == 2
				&& Set.of("_?._", "_[_]", "_[?_]").contains(expr.call().function())
				&& expr.call().args().get(1).getKind() == CelExpr.ExprKind.Kind.CONSTANT
				&& expr.call().args().get(1).constant().getKind() == CelConstant.Kind.STRING_VALUE) {
			return expr.call().args().get(1).constant().stringValue();
		}
		return null;
	}

	/** Whether the value {@code read} yields is only compared with constants or used as a bool. */
	private static boolean decidedByConstants(CelNavigableExpr read) {
		CelExpr expr = read.expr();
		if (expr.getKind() == CelExpr.ExprKind.Kind.SELECT && expr.select().testOnly()) {
			return true; // has(mcp.arguments.x)
		}
		CelNavigableExpr value = read;
		Optional<CelNavigableExpr> parent = read.parent();
		if (parent.isPresent() && isCall(parent.get().expr(), "orValue")
				&& parent.get().expr().call().args().stream().allMatch(ArgumentShapes::isConstant)) {
			value = parent.get();
			parent = value.parent();
		}
		if (parent.isEmpty()) {
			return true; // the whole expression is the argument, a bool
		}
		CelExpr use = parent.get().expr();
		if (isCall(use, "_==_") || isCall(use, "_!=_")) {
			return use.call().args().stream().anyMatch(ArgumentShapes::isConstant);
		}
		if (isCall(use, "@in")) {
			CelExpr list = use.call().args().get(1);
			return list.getKind() == CelExpr.ExprKind.Kind.LIST
					&& list.list().elements().stream().allMatch(ArgumentShapes::isConstant);
		}
		return isCall(use, "!_") || isCall(use, "_&&_") || isCall(use, "_||_")
				|| (isCall(use, "_?_:_") && use.call().args().get(0).id() == value.expr().id());
	}

	private static boolean isArguments(CelExpr expr) {
		return expr.getKind() == CelExpr.ExprKind.Kind.SELECT && expr.select().field().equals("arguments")
				&& !expr.select().testOnly()
				&& expr.select().operand().getKind() == CelExpr.ExprKind.Kind.IDENT
				&& expr.select().operand().ident().name().equals("mcp");
	}

	private static boolean isCall(CelExpr expr, String function) {
		return expr.getKind() == CelExpr.ExprKind.Kind.CALL && expr.call().function().equals(function);
	}

	private static boolean isConstant(CelExpr expr) {
		return expr.getKind() == CelExpr.ExprKind.Kind.CONSTANT;
	}

	private static Object valueOf(CelConstant constant) {
		return switch (constant.getKind()) {
			case BOOLEAN_VALUE -> constant.booleanValue();
			case INT64_VALUE -> constant.int64Value();
			case DOUBLE_VALUE -> constant.doubleValue();
			case STRING_VALUE -> constant.stringValue();
			default -> null;
		};
	}

}
