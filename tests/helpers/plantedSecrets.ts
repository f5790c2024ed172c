/**
 * One planted secret of every family the redactor must know, as it would appear in a file or a
 * command's output (`text`), with its sensitive part (`secret`) and the prefix that names its shape.
 * The values are made up (random-looking, not real keys).
 */
export interface PlantedSecret {
  family: string;
  text: string;
  secret: string;
  /** The key shape's prefix: a cut right after it plus a few characters must still be withheld. */
  prefix?: string;
}

const PEM_BODY = ['MIIEpQIBAAKCAQEAq7Zt9Lm2Xw4Rb8Vn3Kc6Jd1Hf5Gs0Ty', 'Pw2Qe4Ra6Sd8Fg0Hj2Kl4Zx6Cv8Bn0Mq3Wr5Et7Yu9Io1Pa', 'Lk9Jh7Gf5Ds3Az1Xc2Vb4Nm6Qw8Er0Ty2Ui4Op6As8Df0Gh'];

export const PLANTED_SECRETS: PlantedSecret[] = [
  { family: 'openai', text: 'sk-Xq7Lm2Pz9Rt4Wv6Yb1Nc8Dk3Fh5', secret: 'Xq7Lm2Pz9Rt4Wv6Yb1Nc8Dk3Fh5', prefix: 'sk-' },
  { family: 'openai project', text: 'sk-proj-Hm4Tq8Zr2Lw6Kp1Vx9Bn3Cd7Gj5Sf0', secret: 'Hm4Tq8Zr2Lw6Kp1Vx9Bn3Cd7Gj5Sf0', prefix: 'sk-proj-' },
  { family: 'anthropic', text: 'sk-ant-api03-Rv5Ny2Qk8Mx3Lp7Wt1Zj9Hb4Cf6Dg0Ks-AAAA', secret: 'Rv5Ny2Qk8Mx3Lp7Wt1Zj9Hb4Cf6Dg0Ks', prefix: 'sk-ant-' },
  { family: 'aws access key id', text: 'AKIAQ7ZR3LWX5NVB2MTK', secret: 'Q7ZR3LWX5NVB2MTK', prefix: 'AKIA' },
  { family: 'aws secret', text: 'aws_secret_access_key = tV9rK2mQ8xL4pZ7wN1bJ6cH3fD0gS5yE+Ua/Ri8Ok', secret: 'tV9rK2mQ8xL4pZ7wN1bJ6cH3fD0gS5yE+Ua/Ri8Ok' },
  { family: 'github classic', text: 'ghp_Lq8Wm3Zt6Rk1Vx9Pn4Bc7Hd2Jf5Gs0Ty3Ak9', secret: 'Lq8Wm3Zt6Rk1Vx9Pn4Bc7Hd2Jf5Gs0Ty3Ak9', prefix: 'ghp_' },
  { family: 'github fine-grained', text: 'github_pat_11AZQ7R3L0Xw5Nv_Tb2Mk8Pq4Zr9Lw6Kp1Vx3Bn7Cd', secret: '11AZQ7R3L0Xw5Nv_Tb2Mk8Pq4Zr9Lw6Kp1Vx3Bn7Cd', prefix: 'github_pat_' },
  { family: 'github oauth', text: 'gho_Zt6Rk1Vx9Pn4Bc7Hd2Jf5Gs0Ty3Ak9Lq8Wm3', secret: 'Zt6Rk1Vx9Pn4Bc7Hd2Jf5Gs0Ty3Ak9Lq8Wm3', prefix: 'gho_' },
  { family: 'slack', text: 'xoxb-2837465019-9182736450-Qw8Er0Ty2Ui4Op6As8Df0Gh', secret: '2837465019-9182736450-Qw8Er0Ty2Ui4Op6As8Df0Gh', prefix: 'xoxb-' },
  { family: 'stripe secret', text: 'sk_live_51Hq7Zr3Lw5Nv2Tb8Mk4Pq9Zr6', secret: '51Hq7Zr3Lw5Nv2Tb8Mk4Pq9Zr6', prefix: 'sk_live_' },
  { family: 'stripe restricted', text: 'rk_live_51Mk4Pq9Zr6Hq7Zr3Lw5Nv2Tb8', secret: '51Mk4Pq9Zr6Hq7Zr3Lw5Nv2Tb8', prefix: 'rk_live_' },
  { family: 'google api key', text: 'AIzaSyD7q-Lm2Pz9Rt4Wv6Yb1Nc8Dk3Fh5Gj0Kx', secret: 'SyD7q-Lm2Pz9Rt4Wv6Yb1Nc8Dk3Fh5Gj0Kx', prefix: 'AIza' },
  {
    family: 'jwt',
    text: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0cmFjZWdhdGUtcGxhbnQifQ.Qm3Xz8Lk2Vr6Tn1Wp9Yb4Hc7Jd5Fg0Ks2Ea8Ro3Ui',
    secret: 'eyJzdWIiOiJ0cmFjZWdhdGUtcGxhbnQifQ.Qm3Xz8Lk2Vr6Tn1Wp9Yb4Hc7Jd5Fg0Ks2Ea8Ro3Ui',
    prefix: 'eyJ',
  },
  { family: 'pem', text: `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY.join('\n')}\n-----END RSA PRIVATE KEY-----`, secret: PEM_BODY.join('\n') },
  { family: 'password assignment', text: 'password = "Zr6Hq7-plant-Lw5Nv2"', secret: 'Zr6Hq7-plant-Lw5Nv2' },
];

/** `text` as JSON would store it inside a string, once and twice escaped. */
export function escapedForms(text: string): string[] {
  const once = JSON.stringify(text).slice(1, -1);
  return [once, JSON.stringify(once).slice(1, -1)];
}

/** Pieces of a secret no artifact may hold: every 8-character window of each line of its sensitive part. */
export function sensitiveParts(planted: PlantedSecret, width = 8): string[] {
  const parts = new Set<string>();
  for (const line of planted.secret.split('\n')) {
    for (let i = 0; i + width <= line.length; i += 2) parts.add(line.slice(i, i + width));
  }
  return [...parts];
}
