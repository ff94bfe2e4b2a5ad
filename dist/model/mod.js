// @ts-self-types="../../model/mod.ts"
