// The small part of jstat that tracegate uses (the package ships no types; it is CommonJS).
declare module 'jstat' {
  interface JStat {
    binomial: { cdf(k: number, n: number, p: number): number; pdf(k: number, n: number, p: number): number };
    studentt: { cdf(x: number, dof: number): number; inv(p: number, dof: number): number };
    normal: { inv(p: number, mean: number, std: number): number; cdf(x: number, mean: number, std: number): number };
  }
  const jstat: { jStat: JStat };
  export default jstat;
}
