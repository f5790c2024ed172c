import { z } from 'zod';
import { defineTool, fault, ok } from './types.js';

export const calculatorTool = defineTool({
  name: 'calculator',
  description: 'Exact arithmetic on two numbers: add, subtract, multiply or divide.',
  schema: z.strictObject({
    operation: z.enum(['add', 'subtract', 'multiply', 'divide']),
    a: z.number().describe('The first operand'),
    b: z.number().describe('The second operand'),
  }),
  async execute(args) {
    const { operation, a, b } = args;
    if (operation === 'divide' && b === 0) {
      return fault('DIVISION_BY_ZERO', 'cannot divide by zero', { recoverable: false, suggestion: 'check the divisor' });
    }
    const value = operation === 'add' ? a + b : operation === 'subtract' ? a - b : operation === 'multiply' ? a * b : a / b;
    return ok(String(value));
  },
});
