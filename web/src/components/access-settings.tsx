/**
 * The Settings sections of sign-in and tokens: "Sign in on your phone",
 * "Sign out other devices", "Connect Claude Code" and "API tokens". One element for the Settings page;
 * a token the Claude Code panel makes shows up in the token list at once.
 */
import { useState } from 'react';
import { ApiTokensSection } from './api-tokens-section.js';
import { ClaudeCodeSection } from './claude-code-section.js';
import { PhoneSignInSection } from './phone-sign-in-section.js';
import { SignOutOthersSection } from './sign-out-others-section.js';

export function AccessSettings() {
  const [tokensChanged, setTokensChanged] = useState(0);
  return (
    <>
      <PhoneSignInSection />
      <SignOutOthersSection />
      <ClaudeCodeSection
        onTokenCreated={() => {
          setTokensChanged((count) => count + 1);
        }}
      />
      <ApiTokensSection refreshKey={tokensChanged} />
    </>
  );
}
